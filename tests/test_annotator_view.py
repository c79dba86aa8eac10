"""An annotator's Home lists only their own projects (#16 p13; the deep link to a page
they may not open: tests/e2e/test_access_browser.py)."""

from __future__ import annotations

import pytest

from annotation_store import Store
from studies import assignments
from tests.support.apptest import open_app


def _projects(store: Store) -> None:
    for name in ("alpha", "beta", "gamma"):
        store.create_project(name, "binary")
        store.upsert_items(
            name, [{"item_id": f"{name[0]}{i}", "fields": {"text": str(i)}} for i in range(3)]
        )
    rows = [
        ("alpha", "a0", "rita", 1, "submitted"),
        ("alpha", "a1", "rita", 0, "draft"),
        ("alpha", "a0", "sam", 1, "submitted"),
        ("beta", "b0", "sam", 1, "submitted"),
    ]
    for project, item, who, value, status in rows:
        store.import_labels(
            project,
            [
                {
                    "item_id": item,
                    "annotator": who,
                    "field": "label",
                    "value": value,
                    "status": status,
                }
            ],
        )
    store.ensure_annotator("rita")
    assignments.assign(store, "gamma", ["g2"], "rita")


def test_an_annotators_home_lists_only_their_projects_and_counts(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _projects(store)
    at = open_app(monkeypatch, store.url, user=store.annotator("rita"))
    table = at.main.table[0].value
    assert list(table.columns) == [
        "project",
        "kind",
        "items",
        "assigned to you",
        "your submitted labels",
        "your drafts",
    ]
    assert table.values.tolist() == [
        ["alpha", "Binary label", 3, 0, 1, 1],
        ["gamma", "Binary label", 3, 1, 0, 0],
    ]


def test_an_annotator_without_work_gets_a_hint_not_the_project_table(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _projects(store)
    store.ensure_annotator("newbie")
    at = open_app(monkeypatch, store.url, user=store.annotator("newbie"))
    assert len(at.main.table) == 0
    assert at.info[0].value.startswith("You have no items or labels yet.")
