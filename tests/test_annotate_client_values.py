"""The annotation client's value questions and conditional questions (issue #46): free
text, scores on 0-1 and on a numeric range, spans of whole words, a label set, an
optional question, and a question asked only once the answer it depends on is saved."""

from __future__ import annotations

import pytest

from annotating.actions import ActionRefused
from annotation_store import Store
from tests.support.value_kind import value_project
from ui.annotation import fast_lane
from ui.annotation.fast_lane import LaneError
from ui.annotation.options import words


@pytest.fixture
def rc(store: Store) -> tuple[Store, object, object]:
    value_project(store)
    return store, store.project("rc"), store.ensure_annotator("ann")


def _targets(store, project, user, item="r0") -> dict:
    payload = fast_lane.item_payload(store, project, user, item)
    return {t["key"]: t for t in payload["targets"]}


def test_the_client_draws_every_question_of_the_kind(rc) -> None:
    store, project, user = rc
    assert fast_lane.covers(project)
    t = _targets(store, project, user)
    assert [k for k in t] == [
        "has_errors", "errors", "quality", "stars", "topics", "summary", "comment"
    ]  # fmt: skip
    assert {k: v["control"] for k, v in t.items() if v["byValue"]} == {
        "errors": "spans", "quality": "score", "stars": "score", "summary": "text",
        "comment": "text",
    }  # fmt: skip
    # the spans question waits for a "yes"; the others are asked
    assert [k for k, v in t.items() if not v["asked"]] == ["errors"]
    assert (t["quality"]["min"], t["quality"]["max"], t["quality"]["step"]) == (0, 1, 0.01)
    assert (t["stars"]["min"], t["stars"]["max"], t["stars"]["step"]) == (1, 10, 1)
    assert t["errors"]["words"][2] == [8, 13, "sleep"]
    assert [c["label"] for c in t["errors"]["choices"]] == ["fact", "tone"]
    assert t["comment"]["required"] is False and t["summary"]["required"] is True


def test_words_are_character_ranges_of_the_text() -> None:
    assert words("a  bc\nd.") == [(0, 1, "a"), (3, 5, "bc"), (6, 8, "d.")]


def test_values_are_saved_as_the_question_types_store_them(rc) -> None:
    store, project, user = rc
    view = fast_lane.save_choices(
        store,
        project,
        user,
        "r0",
        {
            "has_errors": 0,  # the first option: "yes"
            "errors": [{"start": 8, "end": 13, "label": "fact"}],  # asked after the "yes"
            "quality": 0.75,
            "stars": 7,
            "topics": [0, 2],
            "summary": "  A cat on a sofa. ",
        },
    )
    assert view.labels == {
        "has_errors": 1,
        "errors": [{"start": 8, "end": 13, "label": "fact"}],
        "quality": 0.75,
        "stars": 7.0,
        "topics": ["billing", "health"],
        "summary": "A cat on a sofa.",
    }
    # the optional comment is not needed: the server submits
    fast_lane.save_and_submit(store, project, user, "r0", {}, 3.0)
    assert store.item_state("rc", "r0", "ann")["status"] == "submitted"


def test_a_conditional_question_is_refused_until_its_condition_holds(rc) -> None:
    store, project, user = rc
    spans = [{"start": 0, "end": 3, "label": "tone"}]
    with pytest.raises(LaneError, match="its condition does not hold"):
        fast_lane.save_choices(store, project, user, "r1", {"errors": spans})
    with pytest.raises(LaneError, match="its condition does not hold"):
        fast_lane.save_choices(store, project, user, "r1", {"has_errors": 1, "errors": spans})
    assert store.item_state("rc", "r1", "ann")["labels"] == {}  # nothing saved
    fast_lane.save_choices(store, project, user, "r1", {"has_errors": 0})
    asked = fast_lane.asked_keys(fast_lane.save_choices(store, project, user, "r1", {}))
    assert "errors" in asked
    # asked now, and required: the server refuses a submit without it
    with pytest.raises(ActionRefused, match="still to answer: errors"):
        fast_lane.save_and_submit(
            store, project, user, "r1",
            {"quality": 0.0, "stars": 1, "topics": [1], "summary": "Trains hourly."}, 1.0,
        )  # fmt: skip


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        ({"summary": "   "}, "no text for 'summary'"),
        ({"quality": "high"}, "no number 'high' for 'quality'"),
        ({"quality": True}, "no number True for 'quality'"),
        ({"errors": "sleep"}, "no spans 'sleep' for 'errors'"),
        ({"nope": 1}, "no question 'nope' on this item"),
    ],
)
def test_malformed_values_are_refused_and_nothing_is_saved(rc, chosen, message) -> None:
    store, project, user = rc
    if "errors" in chosen:
        fast_lane.save_choices(store, project, user, "r2", {"has_errors": 0})
    before = store.item_state("rc", "r2", "ann")["labels"]
    with pytest.raises(LaneError, match=message):
        fast_lane.save_choices(store, project, user, "r2", chosen)
    assert store.item_state("rc", "r2", "ann")["labels"] == before


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        ({"quality": 1.5}, "above the maximum"),
        ({"stars": 0}, "below the minimum"),
        ({"errors": [{"start": 3, "end": 99, "label": "fact"}]}, "not a range inside"),
        ({"errors": [{"start": 0, "end": 3, "label": "style"}]}, "not one of"),
    ],
)
def test_the_question_type_checks_each_value(rc, chosen, message) -> None:
    store, project, user = rc
    fast_lane.save_choices(store, project, user, "r2", {"has_errors": 0})
    with pytest.raises(ValueError, match=message):
        fast_lane.save_choices(store, project, user, "r2", chosen)
    assert list(store.item_state("rc", "r2", "ann")["labels"]) == ["has_errors"]
