"""Blind by default: what annotators, reviewers and admins see on the Annotate page."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.annotate_apptest import click, open_annotate, open_side_expander
from tests.annotate_fixtures import make_project
from ui.annotation.blind import may_see_evaluators, may_see_others
from ui.annotation.page import OTHERS_OPEN_KEY


def _labels(at) -> list[str]:
    return [e.label for e in at.expander]


def _setup(store: Store, show: str) -> tuple:
    make_project(store, "intent_match", show_evaluators=show)
    ann = store.ensure_annotator("ann", "annotator")
    other = store.ensure_annotator("other", "annotator")
    rev = store.ensure_annotator("rev", "reviewer")
    store.save_label("intent_match", "im2", "other", "match", 0)
    return ann, other, rev


@pytest.mark.parametrize(
    ("role", "setting", "status", "expected"),
    [
        ("annotator", "never", "submitted", False),
        ("annotator", "after_submit", "draft", False),
        ("annotator", "after_submit", None, False),
        ("annotator", "after_submit", "submitted", True),
        ("annotator", "always", None, True),
        ("reviewer", "never", None, True),
        ("admin", "never", None, True),
    ],
)
def test_evaluator_visibility_rule(role, setting, status, expected) -> None:
    assert may_see_evaluators(role, setting, status) is expected


def test_only_reviewers_and_admins_see_others() -> None:
    assert [may_see_others(r) for r in ("annotator", "reviewer", "admin")] == [False, True, True]


def test_annotator_sees_evaluators_only_after_submit(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, _, _ = _setup(store, "after_submit")
    at = open_annotate(monkeypatch, store.url, "intent_match", ann)
    assert at.query_params["item"] == "im1"
    assert "Evaluators" not in _labels(at)
    assert "Other annotators' labels" not in _labels(at)
    assert any("appear after you submit" in c.value for c in at.caption)
    for i in range(5):
        click(at, f"opt::im1::gold_fact_labels.{i}::C")
    for i in range(4):
        click(at, f"opt::im1::predicted_fact_labels.{i}::C")
    click(at, "opt::im1::match::1")
    click(at, "submit")
    assert at.query_params["item"] == "im2"  # moved on to the next claim
    back = open_annotate(monkeypatch, store.url, "intent_match", ann, item="im1")
    assert "Evaluators" in _labels(back)
    assert "Other annotators' labels" not in _labels(back)


def test_annotator_with_never_setting_sees_no_evaluators(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, _, _ = _setup(store, "never")
    at = open_annotate(monkeypatch, store.url, "intent_match", ann)
    assert "Evaluators" not in _labels(at)


def test_annotator_with_always_setting_sees_evaluators(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, _, _ = _setup(store, "always")
    at = open_annotate(monkeypatch, store.url, "intent_match", ann)
    assert "Evaluators" in _labels(at)


def test_annotator_cannot_open_an_item_not_assigned(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, _, _ = _setup(store, "after_submit")
    at = open_annotate(monkeypatch, store.url, "intent_match", ann, item="im2")
    assert any("not assigned to you" in w.value for w in at.warning)
    assert at.query_params["item"] == "im1"
    # nothing of the other annotator's label leaks into the page
    assert not at.dataframe
    assert "Go to item" not in [s.label for s in at.selectbox]


def test_reviewer_sees_everything(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, rev = _setup(store, "never")
    at = open_annotate(monkeypatch, store.url, "intent_match", rev, item="im2")
    assert at.query_params["item"] == "im2"
    assert "Evaluators" in _labels(at)
    assert "Other annotators' labels" in _labels(at)
    open_side_expander(at, OTHERS_OPEN_KEY)
    table = at.table[0].value  # a static table: it wraps in the narrow side column
    assert table.to_dict("records") == [
        {"annotator": "other", "field": "match", "value": "0", "status": "draft"}
    ]


def test_others_table_mixes_fact_label_lists_and_scalars_as_text(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #16 point 8: a list and a scalar in one Arrow column raised ArrowInvalid."""
    _, _, rev = _setup(store, "never")
    store.save_label("intent_match", "im2", "other", "gold_fact_labels", ["C", "M"])
    at = open_annotate(monkeypatch, store.url, "intent_match", rev, item="im2")
    open_side_expander(at, OTHERS_OPEN_KEY)
    table = at.table[0].value
    assert sorted(zip(table["field"], table["value"], strict=True)) == [
        ("gold_fact_labels", "C, M"),
        ("match", "0"),
    ]
