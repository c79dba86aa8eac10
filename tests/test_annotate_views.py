"""Each kind's Annotate view: label, submit, reload (a fresh session), same values."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from tests.annotate_apptest import chosen, click, open_annotate
from tests.annotate_fixtures import make_project
from ui.annotation.context import widget_token as tok

# kind -> item, clicks (target key, value), expected labels after submit
CASES = {
    "intent_match": (
        "im1",
        [
            *[(f"gold_fact_labels.{i}", v) for i, v in enumerate("CMCCM")],
            *[(f"predicted_fact_labels.{i}", v) for i, v in enumerate("CCCC")],
            ("match", 1),
        ],
        {"gold_fact_labels": list("CMCCM"), "predicted_fact_labels": list("CCCC"), "match": 1},
    ),
    "actionability": (
        "ac1",
        [("errors_detected", 2), ("errors_corrected", 1), ("sources", 3)],
        {"errors_detected": 2, "errors_corrected": 1, "sources": 3},
    ),
    "dialogue_faithfulness": ("df1", [("faithful", 0)], {"faithful": 0}),
    "intent_resolution": ("ir1", [("resolution", 0.8)], {"resolution": 0.8}),
    "likert": ("lk1", [("label", 4)], {"label": 4}),
    "categorical": ("ct1", [("label", "mixed")], {"label": "mixed"}),
    "binary": ("bn1", [("label", 0)], {"label": 0}),
}


def _open_new_project(
    store: Store, monkeypatch: pytest.MonkeyPatch, kind: str, first_item: str
) -> AppTest:
    """The fixture project of ``kind``, opened on the Annotate page at its first item."""
    make_project(store, kind)
    at = open_annotate(monkeypatch, store.url, kind)
    assert at.query_params["item"] == first_item
    return at


def _stored_rows(store: Store, project: str) -> list[list]:
    """The project's submitted labels as [item_id, field, value] rows."""
    frame = store.annotations_frame(project)
    return frame[["item_id", "field", "value"]].values.tolist()


@pytest.mark.parametrize("kind", sorted(CASES))
def test_label_submit_reload_shows_same_values(
    kind: str, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    item, clicks, expected = CASES[kind]
    at = _open_new_project(store, monkeypatch, kind, item)
    for target, value in clicks:
        click(at, f"opt::{tok(kind, item)}::{target}::{value}")
    # every choice is in the store as a draft before submit
    state = store.item_state(kind, item, "admin")
    assert state["labels"] == expected and state["status"] == "draft"
    click(at, "submit")
    assert store.item_state(kind, item, "admin")["status"] == "submitted"
    frame = store.annotations_frame(kind)
    assert set(frame[frame["item_id"] == item]["field"]) == set(expected)

    again = open_annotate(monkeypatch, store.url, kind, item=item)
    for target, value in clicks:
        assert chosen(again, kind, item, target) == [str(value)], target
    assert any("submitted" in m.value for m in again.markdown)


def test_binary_shows_text_context_and_yes_no(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _open_new_project(store, monkeypatch, "binary", "bn1")
    texts = [m.value for m in at.markdown]
    assert "Canberra is the capital of Australia\\." in texts
    assert "| Context | Value |\n|---|---|\n| topic | geography |" in texts
    options = {
        b.key: b.label
        for b in at.button
        if (b.key or "").startswith(f"opt::{tok('binary', 'bn1')}::")
    }
    assert options == {
        f"opt::{tok('binary', 'bn1')}::label::1": "yes",
        f"opt::{tok('binary', 'bn1')}::label::0": "no",
    }
    click(at, f"opt::{tok('binary', 'bn1')}::label::1")
    click(
        at, f"opt::{tok('binary', 'bn1')}::label::0"
    )  # a changed mind: the last choice is what is stored
    assert store.item_state("binary", "bn1", "admin")["labels"] == {"label": 0}
    assert chosen(at, "binary", "bn1", "label") == ["0"]
    click(at, "submit")
    assert _stored_rows(store, "binary") == [["bn1", "label", 0]]


def test_score_number_submit_reload_shows_same_value(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _open_new_project(store, monkeypatch, "score", "sc1")
    box = at.number_input(key=f"num::{tok('score', 'sc1')}::label")
    assert box.value is None and (box.min, box.max) == (0.0, 1.0)
    click(at, "submit")  # refused: no score yet
    assert store.item_state("score", "sc1", "admin")["status"] is None
    assert any("still to answer: label" in i.value for i in at.info)
    at.number_input(key=f"num::{tok('score', 'sc1')}::label").set_value(0.75).run()
    assert not at.exception
    state = store.item_state("score", "sc1", "admin")
    assert state["labels"] == {"label": 0.75} and state["status"] == "draft"
    click(at, "submit")
    assert store.item_state("score", "sc1", "admin")["status"] == "submitted"
    assert _stored_rows(store, "score") == [["sc1", "label", 0.75]]

    again = open_annotate(monkeypatch, store.url, "score", item="sc1")
    assert again.number_input(key=f"num::{tok('score', 'sc1')}::label").value == 0.75
    assert any("submitted" in m.value for m in again.markdown)
    # a changed score after submit stays submitted and is kept in the history
    again.number_input(key=f"num::{tok('score', 'sc1')}::label").set_value(0.4).run()
    state = store.item_state("score", "sc1", "admin")
    assert state["labels"] == {"label": 0.4} and state["status"] == "submitted"
    assert list(store.history("score", "sc1")["new_value"])[-1] == 0.4
    third = open_annotate(monkeypatch, store.url, "score", item="sc1")
    assert third.number_input(key=f"num::{tok('score', 'sc1')}::label").value == 0.4


def test_intent_match_live_scores_and_partial_draft(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(store, "intent_match")
    at = open_annotate(monkeypatch, store.url, "intent_match")
    click(at, f"opt::{tok('intent_match', 'im1')}::gold_fact_labels.0::C")
    click(at, f"opt::{tok('intent_match', 'im1')}::gold_fact_labels.1::M")
    # half a list is saved as a draft; unlabelled facts hold "?"
    saved = store.item_state("intent_match", "im1", "admin")["labels"]["gold_fact_labels"]
    assert saved == ["C", "M", "?", "?", "?"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Recall"] == "0.50"  # of the facts labelled so far
    assert metrics["Precision"] == "—"
    click(at, "submit")  # refused: facts are missing
    assert store.item_state("intent_match", "im1", "admin")["status"] == "draft"
    assert any("still to answer" in i.value for i in at.info)
    # a reload keeps the half-done list
    again = open_annotate(monkeypatch, store.url, "intent_match", item="im1")
    assert chosen(again, "intent_match", "im1", "gold_fact_labels.1") == ["M"]
    assert chosen(again, "intent_match", "im1", "gold_fact_labels.2") == []


def test_changing_a_submitted_label_keeps_history(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(store, "dialogue_faithfulness")
    at = open_annotate(monkeypatch, store.url, "dialogue_faithfulness")
    click(at, f"opt::{tok('dialogue_faithfulness', 'df1')}::faithful::1")
    click(at, "submit")
    at = open_annotate(monkeypatch, store.url, "dialogue_faithfulness", item="df1")
    click(at, f"opt::{tok('dialogue_faithfulness', 'df1')}::faithful::0")
    state = store.item_state("dialogue_faithfulness", "df1", "admin")
    assert state["labels"] == {"faithful": 0} and state["status"] == "submitted"
    hist = store.history("dialogue_faithfulness", "df1")
    assert list(hist["new_value"]) == [1, 1, 0]
    assert list(hist["old_value"])[-1] == 1


def test_note_and_flag_are_saved_and_restored(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(store, "likert")
    at = open_annotate(monkeypatch, store.url, "likert")
    at.text_area(key=f"note::{tok('likert', 'lk1')}").input("ambiguous source").run()
    click(at, "flag")
    state = store.item_state("likert", "lk1", "admin")
    assert state["note"] == "ambiguous source" and state["flagged"] is True
    again = open_annotate(monkeypatch, store.url, "likert", item="lk1")
    assert again.text_area(key=f"note::{tok('likert', 'lk1')}").value == "ambiguous source"
    assert again.button(key="flag").label == "Unflag"


def test_failed_save_is_shown_and_blocks_moving_on(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(store, "likert")
    at = open_annotate(monkeypatch, store.url, "likert")

    def broken(*args, **kwargs):
        raise RuntimeError("database is locked")

    import ui.context

    monkeypatch.setattr(ui.context.get_store(), "save_label", broken)
    click(at, f"opt::{tok('likert', 'lk1')}::label::4")
    assert any("database is locked" in e.value for e in at.error)
    click(at, "submit")
    assert store.item_state("likert", "lk1", "admin")["status"] is None
    assert any("database is locked" in e.value for e in at.error)


def test_the_plain_form_draws_every_kind() -> None:
    from ui.annotation import VIEWS, view_for
    from ui.annotation.generic import render

    # no per-kind views: built-in, declared and future kinds share the one form
    assert VIEWS.names() == ["*"]
    for kind in (
        "some_future_kind",
        "binary",
        "score",
        "intent_match",
        "actionability",
        "dialogue_faithfulness",
        "intent_resolution",
    ):
        assert view_for(kind) is render, kind
