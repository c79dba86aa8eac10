"""The Audit drill-down keeps its item when the table re-sorts, and Adjudicate opens on
the flagged fact (issue #16, point 6)."""

from __future__ import annotations

import pytest

from adjudication.final_labels import set_final_label
from annotation_store import Store
from tests.support.apptest import assert_ok
from tests.test_audit_app import _audit_page, _audit_project


def _near_fully_correct(store: Store) -> None:
    """The audit project with final labels that make "near" fully correct: compared with
    them, near has the largest |Δ| and heads the table."""
    _audit_project(store)
    for field, n in (("gold_fact_labels", 3), ("predicted_fact_labels", 2)):
        for i in range(n):
            set_final_label(store, "im", "near", field, "C", reviewer="admin", fact_index=i)


def _drilled(at) -> str:
    return next(s.value for s in at.subheader if s.value.startswith("Item `"))


def test_the_reference_toggle_keeps_the_open_item(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _near_fully_correct(store)
    at = _audit_page(monkeypatch, sqlite_url)
    assert list(at.dataframe[0].value["item_id"]) == ["far", "mid", "near"]
    at.session_state["audit_table"] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    assert_ok(at.run())
    assert _drilled(at).startswith("Item `mid`")

    assert_ok(at.toggle(key="audit_use_reference").set_value(True).run())
    assert list(at.dataframe[0].value["item_id"]) == ["near", "far", "mid"]
    assert _drilled(at).startswith("Item `mid`")  # not "far", now in row 1


def test_the_item_opened_by_default_stays_open_when_the_table_re_sorts(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _near_fully_correct(store)
    at = _audit_page(monkeypatch, sqlite_url)
    assert _drilled(at).startswith("Item `far`")  # nothing clicked: the top row
    assert_ok(at.toggle(key="audit_use_reference").set_value(True).run())
    assert at.dataframe[0].value["item_id"].iloc[0] == "near"
    assert _drilled(at).startswith("Item `far`")


def test_adjudicate_opens_on_the_first_flagged_fact(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _audit_project(store)
    at = _audit_page(monkeypatch, sqlite_url)
    at.session_state["audit-tabs-im-far"] = "Adjudicate"
    target = at.run().selectbox(key="adj-im-far-target")
    # The fact grid flags gold facts 2 and 3 of "far" (Bi-Fact says C, people M).
    assert target.format_func(target.value) == "gold facts #2: to Paris"


def test_adjudication_starts_where_people_disagree_and_speaks_in_words() -> None:
    from kinds import get_kind
    from ui.audit.adjudication_view import WHOLE_FIELD, _disputed, shown_value

    people = {
        "a": {"gold_fact_labels": ["C", "M", "C"], "match": 1},
        "b": {"gold_fact_labels": ["C", "C", "C"], "match": 1},
    }
    assert not _disputed(people, "gold_fact_labels", 0)
    assert _disputed(people, "gold_fact_labels", 1)
    assert not _disputed(people, "match", WHOLE_FIELD)
    match = get_kind("intent_match").human_field("match", {})
    assert shown_value(match, WHOLE_FIELD, 0) == "different task"
    binary = get_kind("binary").human_field("label", {})
    assert (shown_value(binary, WHOLE_FIELD, 1), shown_value(binary, WHOLE_FIELD, 0)) == (
        "yes",
        "no",
    )
    resolution = get_kind("intent_resolution").human_field("resolution", {})
    assert shown_value(resolution, WHOLE_FIELD, 0.2).endswith("(0.2)")
