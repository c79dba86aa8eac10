"""Parts of the Annotate page around the views: guideline, position and progress, note,
skip, flag; and what the plain form computes or shows (the dialogue act, the actionability total).
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from kinds.builtin.actionability import GUIDELINE as ACTIONABILITY_GUIDELINE
from studies import assignments as asg
from tests.annotate_apptest import chosen, click, open_annotate
from tests.annotate_fixtures import make_project
from ui.annotation.context import widget_token as tok
from ui.annotation.fast_lane import field_text
from ui.annotation.widgets import _plain

EXTRA_LIKERT = [
    {"item_id": "lk2", "fields": {"text": "The summary invents a date."}},
    {"item_id": "lk3", "fields": {"text": "The summary is too long."}},
]


def _likert3(store: Store, **settings: Any) -> str:
    """A Likert project with three items (lk1, lk2, lk3)."""
    name = make_project(store, "likert", **settings)
    store.upsert_items(name, EXTRA_LIKERT)
    return name


def _guideline(at: AppTest) -> tuple[bool, list[str], list[str]]:
    """The Guideline expander: expanded?, its Markdown texts, its captions."""
    box = next(e for e in at.expander if e.label == "Guideline")
    return box.proto.expanded, [m.value for m in box.markdown], [c.value for c in box.caption]


def _position(at: AppTest) -> str:
    """The caption under the item title ("3 items left for you · project ...")."""
    return next(c.value for c in at.caption if " · project **" in c.value)


def _progress(at: AppTest) -> tuple[int, str]:
    """The progress bar: its value (percent) and text."""
    (bar,) = at.get("progress")
    return bar.proto.value, bar.proto.text


def _title(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("#### "))


# -- guideline ------------------------------------------------------------------------------
def test_guideline_shows_the_projects_text_and_version(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(store, "actionability")
    at = open_annotate(monkeypatch, store.url, "actionability")
    expanded, texts, captions = _guideline(at)
    assert expanded  # open until the annotator's first submit
    assert texts == [ACTIONABILITY_GUIDELINE.strip()]
    assert "**Errors detected (0-2).**" in texts[0]
    assert captions == ["Guideline version 1"]

    store.update_guideline("actionability", "Score **strictly**: a dead link is 0 sources.")
    again = open_annotate(monkeypatch, store.url, "actionability", item="ac1")
    _, texts, captions = _guideline(again)
    assert texts == ["Score **strictly**: a dead link is 0 sources."]
    assert captions == ["Guideline version 2"]


def test_guideline_collapses_after_the_first_submit_and_shows_a_placeholder_when_empty(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _likert3(store)
    store.update_guideline(name, "")
    at = open_annotate(monkeypatch, store.url, name)
    expanded, texts, _ = _guideline(at)
    assert expanded and texts == ["_No guideline yet._"]
    click(at, f"opt::{tok('likert', 'lk1')}::label::3")
    click(at, "submit")
    assert at.query_params["item"] == "lk2"
    expanded, _, captions = _guideline(at)
    assert not expanded and captions == ["Guideline version 2"]


# -- position and progress --------------------------------------------------------------------
def test_position_and_progress_follow_submits_and_navigation(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _likert3(store)
    at = open_annotate(monkeypatch, store.url, name)
    assert _position(at) == (
        "3 items left for you (this one included) · project **likert** · you: admin"
    )
    assert _progress(at) == (0, "0 of 3 submitted")
    assert _title(at) == "#### Likert scale · `lk1` :blue-badge[new]"

    click(at, f"opt::{tok('likert', 'lk1')}::label::5")
    assert _title(at) == "#### Likert scale · `lk1` :orange-badge[draft]"
    click(at, "submit")
    assert at.query_params["item"] == "lk2"
    assert any(i.value == "Submitted `lk1`." for i in at.info)
    assert _position(at).startswith("2 items left for you (this one included) · ")
    assert _progress(at) == (33, "1 of 3 submitted")

    click(at, "nav_prev")
    assert at.query_params["item"] == "lk1"
    assert _position(at).startswith("2 items left for you · ")  # lk1 is done
    assert _title(at) == "#### Likert scale · `lk1` :green-badge[submitted]"
    click(at, "nav_prev")  # nothing before the first item
    assert at.query_params["item"] == "lk1"
    assert any(i.value == "This is your first item." for i in at.info)

    # an admin may open any item; one not handed to them is "not in your queue"
    other = open_annotate(monkeypatch, store.url, name, item="lk3")
    assert _position(other).startswith("not in your queue · 2 items left for you (this ")
    assert _progress(other) == (33, "1 of 3 submitted")


def test_progress_target_leaves_out_items_others_filled(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _likert3(store, k=1)
    bob = store.ensure_annotator("bob", "annotator")
    store.save_label(name, "lk3", bob.name, "label", 4)
    asg.submit(store, name, "lk3", bob.name)
    at = open_annotate(monkeypatch, store.url, name)
    # lk3 has its one person: two items are left, and the bar counts against those two
    assert _position(at).startswith("2 items left for you (this one included) · ")
    assert _progress(at) == (0, "0 of 2 submitted")


def test_progress_counts_against_the_quota(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    name = _likert3(store, quota=2)
    ana = store.ensure_annotator("ana", "annotator")
    at = open_annotate(monkeypatch, store.url, name, user=ana)
    assert _position(at) == (
        "2 items left for you (this one included) · project **likert** · you: ana"
    )
    assert _progress(at) == (0, "0 of 2 submitted (quota)")
    click(at, f"opt::{tok('likert', 'lk1')}::label::2")
    click(at, "submit")
    assert _progress(at) == (50, "1 of 2 submitted (quota)")
    assert _position(at).startswith("1 item left for you (this one included) · ")
    assert store.item_state(name, "lk1", "ana")["status"] == "submitted"
    assert store.item_state(name, "lk1", "admin")["status"] is None  # only ana's counts


# -- note, skip, flag -------------------------------------------------------------------------
def test_note_is_saved_to_the_store_and_can_be_changed(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = make_project(store, "categorical")
    at = open_annotate(monkeypatch, store.url, name)
    key = f"note::{tok('categorical', 'ct1')}"
    assert at.text_area(key=key).value == ""
    at.text_area(key=key).input("Sarcasm? The battery part reads as a joke.").run()
    state = store.item_state(name, "ct1", "admin")
    assert state["note"] == "Sarcasm? The battery part reads as a joke."
    assert state["labels"] == {} and state["flagged"] is False  # a note alone labels nothing
    at.text_area(key=key).input("Mixed, not sarcastic.").run()
    assert store.item_state(name, "ct1", "admin")["note"] == "Mixed, not sarcastic."
    again = open_annotate(monkeypatch, store.url, name, item="ct1")
    assert again.text_area(key=key).value == "Mixed, not sarcastic."


def test_skip_marks_the_item_skipped_and_moves_on(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _likert3(store)
    at = open_annotate(monkeypatch, store.url, name)
    assert at.query_params["item"] == "lk1"
    click(
        at, f"opt::{tok('likert', 'lk1')}::label::2"
    )  # a label given before skipping is kept, as skipped
    click(at, "skip")
    state = store.item_state(name, "lk1", "admin")
    assert state["status"] == "skipped" and state["labels"] == {"label": 2}
    assert at.query_params["item"] == "lk2"
    assert any(i.value == "Skipped `lk1`; it goes to someone else." for i in at.info)
    assert _title(at) == "#### Likert scale · `lk2` :blue-badge[new]"
    assert asg.queue(store, name, "admin") == ["lk2"]  # lk1 was given back
    skipped = store.annotations_frame(name, ("skipped",))
    assert skipped[["item_id", "field", "value"]].values.tolist() == [["lk1", "label", 2]]
    assert store.annotations_frame(name).empty  # nothing submitted

    click(at, "skip")
    assert at.query_params["item"] == "lk3"
    assert store.item_state(name, "lk2", "admin")["status"] == "skipped"
    assert _progress(at) == (0, "0 of 1 submitted")  # skips are neither progress nor yours


def test_flag_is_stored_shown_and_cleared(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    name = make_project(store, "intent_resolution")
    at = open_annotate(monkeypatch, store.url, name)
    assert at.button(key="flag").label == "Flag"
    click(at, "flag")
    state = store.item_state(name, "ir1", "admin")
    assert state["flagged"] is True and state["labels"] == {}
    assert at.button(key="flag").label == "Unflag"
    assert _title(at).endswith(":red-badge[:material/flag: flagged]")
    progress = store.progress_frame(name)
    assert progress[progress["item_id"] == "ir1"]["flagged"].tolist() == [True]

    again = open_annotate(monkeypatch, store.url, name, item="ir1")
    assert again.button(key="flag").label == "Unflag"
    click(again, "flag")
    assert store.item_state(name, "ir1", "admin")["flagged"] is False
    assert "flagged" not in _title(again)


# -- dialogue act ----------------------------------------------------------------------------
DF1_ACT = "act\\: INFORM  \nslot\\: price\\_range  \nvalues\\: moderate"


def test_dialogue_act_is_rendered_readably(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(store, "dialogue_faithfulness")
    at = open_annotate(monkeypatch, store.url, "dialogue_faithfulness")
    texts = [m.value for m in at.markdown]
    # the act sits right under its title, one line per key, never a Python repr
    header = texts.index("**Act**")
    assert texts[header + 1] == DF1_ACT
    assert texts[texts.index("**Service**") + 1] == "Restaurants\\_1"
    assert "Price range of the restaurant" in texts
    assert "How expensive is the place?" in texts
    assert "It is moderately priced, and they have live music on Fridays\\." in texts
    assert not any("{'act'" in t for t in texts)


@pytest.mark.parametrize(
    ("act", "expected"),
    [
        (
            {"act": "INFORM", "slot": "price_range", "values": ["moderate"]},
            "act: INFORM\nslot: price_range\nvalues: moderate",
        ),
        ({"act": "GOODBYE"}, "act: GOODBYE"),
        (  # text is shown literally: no HTML entities
            {"act": "OFFER", "slot": "restaurant_name", "values": ["P.F. Chang's", "R&B <Bar>"]},
            "act: OFFER\nslot: restaurant_name\nvalues: P.F. Chang's, R&B <Bar>",
        ),
        (  # a backtick stays a backtick
            {"act": "CONFIRM", "slot": "title", "values": ["it`s", "`x"]},
            "act: CONFIRM\nslot: title\nvalues: it`s, `x",
        ),
    ],
)
def test_an_object_field_is_one_line_per_key(act: dict[str, Any], expected: str) -> None:
    assert field_text(act) == expected
    # on the page as literal text: Markdown's characters escaped, HTML left as text
    shown = _plain(expected)
    assert "&amp;" not in shown and "&#x27;" not in shown
    assert shown.replace("\\", "").replace("  \n", "\n") == expected


# -- actionability total --------------------------------------------------------------------
def _actionability_metric(at: AppTest) -> str:
    (metric,) = [m for m in at.metric if m.label == "Actionability"]
    return metric.value


@pytest.mark.parametrize(
    ("detected", "corrected", "sources", "shown"),
    [(2, 1, 3, "4.29"), (2, 2, 3, "5.00"), (1, 0, 0, "0.71"), (0, 0, 0, "0.00")],
)
def test_actionability_total_from_the_three_rubric_fields(
    detected: int,
    corrected: int,
    sources: int,
    shown: str,
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_project(store, "actionability")
    at = open_annotate(monkeypatch, store.url, "actionability")
    assert _actionability_metric(at) == "—"
    click(at, f"opt::{tok('actionability', 'ac1')}::errors_detected::{detected}")
    click(at, f"opt::{tok('actionability', 'ac1')}::errors_corrected::{corrected}")
    assert _actionability_metric(at) == "—"  # undefined until all three are answered
    click(at, f"opt::{tok('actionability', 'ac1')}::sources::{sources}")
    assert _actionability_metric(at) == shown  # (detected + corrected + sources) x 5/7
    assert store.item_state("actionability", "ac1", "admin")["labels"] == {
        "errors_detected": detected,
        "errors_corrected": corrected,
        "sources": sources,
    }
    click(at, "submit")
    again = open_annotate(monkeypatch, store.url, "actionability", item="ac1")
    assert _actionability_metric(again) == shown
    assert chosen(again, "actionability", "ac1", "sources") == [str(sources)]


# -- side column: the evaluator panel and the others' labels ----------------------------------


def _side_box(at: AppTest, label: str) -> Any:
    return next(e for e in at.expander if e.label == label)


def test_closed_side_expanders_build_nothing_until_opened(
    demo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui.annotation.page import EVALUATORS_OPEN_KEY, OTHERS_OPEN_KEY

    rev = Store(demo).ensure_annotator("rev", "reviewer")
    at = open_annotate(monkeypatch, demo, "demo-intent-match", rev, item="alarm")
    # Closed: the expanders are there, empty (the panel's fact grid is not computed).
    evaluators, others = _side_box(at, "Evaluators"), _side_box(at, "Other annotators' labels")
    assert not evaluators.proto.expanded and not others.proto.expanded
    assert list(evaluators.children.values()) == [] and list(others.children.values()) == []
    assert not at.dataframe and not at.table
    # Opened (what a click on the header sets): the panel with Bi-Fact's fact grid.
    at.session_state[EVALUATORS_OPEN_KEY] = True
    at.run()
    evaluators = _side_box(at, "Evaluators")
    assert "#### Evaluators" in [m.value for m in evaluators.markdown]
    assert len(evaluators.get("dataframe")) == 2  # gold and predicted facts
    assert list(_side_box(at, "Other annotators' labels").children.values()) == []
    at.session_state[OTHERS_OPEN_KEY] = True
    at.run()
    (table,) = _side_box(at, "Other annotators' labels").get("table")
    assert len(table.value) > 0
    # The open state holds on the next item.
    at.query_params["item"] = "dinner"
    at.run()
    assert at.query_params["item"] == "dinner" and "dinner" in _title(at)
    assert len(_side_box(at, "Evaluators").get("dataframe")) == 2


def test_the_end_of_the_queue_sums_up_the_annotators_work(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _likert3(store)
    ann = store.ensure_annotator("ann", "annotator")
    at = open_annotate(monkeypatch, store.url, name, ann)
    click(at, f"opt::{tok(name, 'lk1')}::label::4")
    click(at, "submit")
    click(at, f"opt::{tok(name, 'lk2')}::label::2")
    click(at, "submit")
    click(at, "skip")  # the third item: given back
    assert any("Nothing left for you" in s.value for s in at.success)
    shown = {m.label: m.value for m in at.metric}
    assert (shown["Submitted"], shown["Skipped"], shown["Drafts"]) == ("2", "1", "0")
