"""Progress numbers per project and per annotator, and the admin-only page."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import make_project
from tests.support.apptest import APP, open_app


def _fill(store: Store) -> None:
    make_project(store, "intent_resolution", k=2)
    store.upsert_items(
        "intent_resolution",
        [{"item_id": f"x{i}", "fields": {"query": "q", "response": "r"}} for i in range(3)],
    )
    for who, item, secs in (("a", "ir1", 30), ("b", "ir1", 50), ("a", "x0", 10)):
        store.ensure_annotator(who)
        store.save_label("intent_resolution", item, who, "resolution", 0.4)
        asg.submit(store, "intent_resolution", item, who, seconds=secs)
    store.save_label("intent_resolution", "x1", "b", "resolution", 1.0)  # a draft
    asg.skip(store, "intent_resolution", "x2", "a")
    store.set_note("intent_resolution", "x1", "b", flagged=True)


def test_progress_numbers(store: Store) -> None:
    _fill(store)
    people = asg.annotator_progress(store, "intent_resolution").to_dict("records")
    assert people == [
        {
            "annotator": "a",
            "submitted": 2,
            "drafts": 0,
            "skipped": 1,
            "flagged": 0,
            "median_seconds": 20.0,
        },
        {
            "annotator": "b",
            "submitted": 1,
            "drafts": 1,
            "skipped": 0,
            "flagged": 1,
            "median_seconds": 50.0,
        },
    ]
    proj = asg.project_progress(store, "intent_resolution")
    assert (proj["items"], proj["k"], proj["complete"], proj["short_of_k"]) == (4, 2, 1, 3)
    assert proj["missing_labels"] == 0 + 1 + 2 + 2
    assert (proj["submitted"], proj["drafts"], proj["skipped"]) == (3, 1, 1)
    assert proj["median_seconds"] == 30.0


def test_gold_items_are_checks_not_items_to_complete(store: Store) -> None:
    from studies import gold

    _fill(store)
    gold.set_gold(store, "intent_resolution", "ir1", 0.4)  # the one complete item
    proj = asg.project_progress(store, "intent_resolution")
    assert (proj["items"], proj["complete"], proj["short_of_k"]) == (3, 0, 3)
    assert proj["missing_labels"] == 1 + 2 + 2  # x0, x1, x2; nothing for the gold item
    assert proj["submitted"] == 3  # the work done on it still counts


def test_progress_page_for_admin_only(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(store)
    at = open_app(monkeypatch, store.url, page="pages/progress.py")
    people = at.dataframe[1].value
    assert list(people["submitted"]) == [2, 1]
    assert {m.label: m.value for m in at.metric}["Items complete"] == "1 / 4"
    at2 = AppTest.from_file(APP, default_timeout=60)  # another session, same store
    at2.session_state["user"] = store.ensure_annotator("a")
    at2.run()
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at2.switch_page("pages/progress.py")  # not in an annotator's navigation
