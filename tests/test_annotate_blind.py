"""Blind by default: what annotators, reviewers and admins see on the Annotate page."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.annotate_apptest import click, open_annotate, open_side_expander
from tests.annotate_fixtures import make_project
from ui.annotation.blind import may_see_evaluators, may_see_others
from ui.annotation.context import widget_token as tok
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
    assert at.query_params["item"] == "1"  # a neutral number, not the item id
    assert "Evaluators" not in _labels(at)
    assert "Other annotators' labels" not in _labels(at)
    assert any("appear after you submit" in c.value for c in at.caption)
    for i in range(5):
        click(at, f"opt::{tok('intent_match', 'im1')}::gold_fact_labels.{i}::C")
    for i in range(4):
        click(at, f"opt::{tok('intent_match', 'im1')}::predicted_fact_labels.{i}::C")
    click(at, f"opt::{tok('intent_match', 'im1')}::match::1")
    click(at, "submit")
    assert at.query_params["item"] == "2"  # moved on to the next claim
    back = open_annotate(monkeypatch, store.url, "intent_match", ann, item="1")
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
    # an annotator's URL names items by their own numbers: a real id opens nothing
    at = open_annotate(monkeypatch, store.url, "intent_match", ann, item="im2")
    assert any("no item **im2** for you" in w.value for w in at.warning)
    assert at.query_params["item"] == "1"
    at = open_annotate(monkeypatch, store.url, "intent_match", ann, item="7")
    assert any("no item **7** for you" in w.value for w in at.warning)
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


# -- nothing about an item that could give the answer away -----------------------------
TELLING = [
    {
        "item_id": "restaurant-7:tampered",
        "fields": {
            "text": "The restaurant is cheap.",
            "generator": "gpt-4o-judge-own",
            "tampered_from": "The restaurant is expensive.",
            "topic": "food",
        },
    },
    {
        "item_id": "restaurant-8:neg",
        "fields": {"text": "The hotel has a pool.", "generator": "llama-3-negative"},
    },
]
SECRETS = ("tampered", ":neg", "restaurant-7", "restaurant-8", "gpt-4o", "llama-3", "expensive")


def _page_text(at) -> str:
    """Everything the page draws as text, plus its widget keys and URL parameters."""
    parts = [str(e.value) for e in (*at.markdown, *at.caption, *at.info, *at.warning)]
    parts += [str(t.value) for t in at.table] + [str(d.value) for d in at.dataframe]
    parts += [b.key or "" for b in at.button] + [b.label for b in at.button]
    parts += [ta.key or "" for ta in at.text_area]
    parts += [f"{k}={v}" for k, v in at.query_params.items()]
    return " ".join(parts)


def _telling_project(store: Store, **settings) -> None:
    store.create_project("blind", "binary", {"k": 2, **settings})
    store.upsert_items("blind", TELLING)


def test_annotators_see_no_ids_generators_or_extra_columns(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _telling_project(store)
    ann = store.ensure_annotator("ann", "annotator")
    at = open_annotate(monkeypatch, store.url, "blind", ann)
    shown = _page_text(at)
    assert "The restaurant is cheap" in shown  # the text to judge is there
    assert "item 1" in shown and at.query_params["item"] == "1"
    for secret in SECRETS + ("food",):
        assert secret not in shown, secret
    click(at, f"opt::{tok('blind', 'restaurant-7:tampered')}::label::1")
    click(at, "submit")
    shown = _page_text(at)
    assert at.query_params["item"] == "2" and "The hotel has a pool" in shown
    assert "Submitted item 1." in shown
    for secret in SECRETS:
        assert secret not in shown, secret
    # the label went to the real item
    assert store.item_state("blind", "restaurant-7:tampered", "ann")["labels"] == {"label": 1}


def test_a_project_may_let_annotators_see_chosen_fields(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _telling_project(store, annotators_see=["generator", "topic"])
    ann = store.ensure_annotator("ann", "annotator")
    shown = _page_text(open_annotate(monkeypatch, store.url, "blind", ann))
    assert "gpt-4o-judge-own" in shown and "food" in shown
    assert "tampered" not in shown and "expensive" not in shown


def test_reviewers_still_see_ids_and_everything(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _telling_project(store)
    rev = store.ensure_annotator("rev", "reviewer")
    at = open_annotate(monkeypatch, store.url, "blind", rev)
    shown = _page_text(at)
    assert at.query_params["item"] == "restaurant-7:tampered"
    assert "gpt-4o-judge-own" in shown and "expensive" in shown
