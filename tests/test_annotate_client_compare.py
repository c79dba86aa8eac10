"""The annotation client draws comparisons (issue #46): a pairwise question with
strengths as one scale keyed by digits, and a ranking keyed by the outputs' letters,
both blind ("Response A", "Response B" ...), saved through the same actions."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.support.compare_kind import ranking_project, strengths_project
from ui.annotation import fast_lane
from ui.annotation.fast_lane import LaneError


def _payload(store: Store, project: str, item: str = "c00") -> dict:
    user = store.ensure_annotator("ann")
    return fast_lane.item_payload(store, store.project(project), user, item)


def _save(store: Store, project: str, chosen: dict, item: str = "c00") -> dict:
    user = store.ensure_annotator("ann")
    return fast_lane.save_choices(store, store.project(project), user, item, chosen).labels


def test_pairwise_with_strengths_is_a_scale_keyed_by_digits(store: Store) -> None:
    strengths_project(store)
    assert fast_lane.covers(store.project("ps"))
    payload = _payload(store, "ps")
    [target] = payload["targets"]
    assert target["control"] == "pairwise"
    assert target["choices"] == [
        {"label": "A is better (much)", "keys": ["1"]},
        {"label": "A is better (slightly)", "keys": ["2", "a"]},
        {"label": "Tie", "keys": ["3", "t"]},
        {"label": "B is better (slightly)", "keys": ["4", "b"]},
        {"label": "B is better (much)", "keys": ["5"]},
    ]
    titles = [p["title"] for p in payload["panels"]]
    assert titles == ["Request", "Response A", "Response B"]


@pytest.mark.parametrize(
    ("index", "side", "strength"),
    [(0, 0, "much"), (1, 0, "slightly"), (2, None, None), (3, 1, "slightly"), (4, 1, "much")],
)
def test_each_scale_point_is_stored_with_its_side_strength_and_shown_order(
    store: Store, index: int, side: int | None, strength: str | None
) -> None:
    strengths_project(store)
    saved = _save(store, "ps", {"preference": index})["preference"]
    shown = saved["shown"]
    assert sorted(shown) == ["answer_a", "answer_b"]
    # Response A is the first output shown: its panel's text is that output's
    panels = _payload(store, "ps")["panels"]
    assert panels[1]["text"] == f"{shown[0]} of 0" and panels[2]["text"] == f"{shown[1]} of 0"
    assert saved["choice"] == ("tie" if side is None else shown[side])
    assert saved["strength"] == strength
    # and the panel marks the same point when the item is drawn again
    assert _payload(store, "ps")["targets"][0]["chosen"] == index


def test_a_ranking_is_keyed_by_letters_and_stored_best_first(store: Store) -> None:
    ranking_project(store)
    assert fast_lane.covers(store.project("rk"))
    payload = _payload(store, "rk")
    [target] = payload["targets"]
    assert target["control"] == "ranking" and (target["places"], target["ties"]) == (3, True)
    assert target["choices"] == [
        {"label": "Response A", "keys": ["a"]},
        {"label": "Response B", "keys": ["b"]},
        {"label": "Response C", "keys": ["c"]},
        {"label": "Level with the place above", "keys": ["="]},
    ]
    titles = [p["title"] for p in payload["panels"]]
    assert titles == ["Request", "Response A", "Response B", "Response C"]
    shown = [p["text"].split(" of ")[0] for p in payload["panels"][1:]]
    # C first, then A and B level
    saved = _save(store, "rk", {"order": [[2], [0, 1]]})["order"]
    declared = ["answer_a", "answer_b", "answer_c"]
    assert saved == [[shown[2]], sorted(shown[:2], key=declared.index)]
    chosen = _payload(store, "rk")["targets"][0]["chosen"]
    assert [sorted(shown[i] for i in g) for g in chosen] == [sorted(g) for g in saved]


@pytest.mark.parametrize(
    ("chosen", "error", "message"),
    [
        ([[0], [1]], ValueError, "must place each of"),  # C has no place
        ([[0], [1], [3]], LaneError, "no ranking"),  # the level option is no output
        ([[0], []], LaneError, "no ranking"),
        ("b,a,c", LaneError, "no ranking"),
    ],
)
def test_an_incomplete_or_malformed_ranking_is_refused(
    store: Store, chosen: object, error: type, message: str
) -> None:
    ranking_project(store)
    with pytest.raises(error, match=message):
        _save(store, "rk", {"order": chosen})
    assert store.item_state("rk", "c00", "ann")["labels"] == {}


def test_a_ranking_without_ties_has_no_level_option_and_refuses_one(store: Store) -> None:
    ranking_project(store, ties=False)
    target = _payload(store, "rk")["targets"][0]
    assert [c["keys"] for c in target["choices"]] == [["a"], ["b"], ["c"]]
    assert target["ties"] is False
    with pytest.raises(ValueError, match="allows no ties"):
        _save(store, "rk", {"order": [[0, 1], [2]]})
