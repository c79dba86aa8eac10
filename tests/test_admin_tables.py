"""The admin page's assignment and fact-version tables speak in words: statuses, how an
item was given, timestamps to the minute; no raw column names or flags."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from annotation_store import Store
from interop.importing import import_items
from studies import assignments as asg
from tests.support.apptest import assert_ok, open_app
from ui.admin_tables import assignments_table, fact_versions_table

WHEN = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d$")


def test_assignment_rows_in_words() -> None:
    at = datetime(2026, 11, 27, 21, 4, 4, 517541)
    table = assignments_table(
        [
            {"item_id": "a", "annotator": "ana", "status": "open", "explicit": True, "created_at": at},
            {"item_id": "b", "annotator": "ana", "status": "done", "explicit": False, "created_at": at},
        ]
    )  # fmt: skip
    assert list(table.columns) == ["item", "annotator", "status", "given", "since (UTC)"]
    assert table.to_dict("records") == [
        {"item": "a", "annotator": "ana", "status": "to do", "given": "assigned by an admin",
         "since (UTC)": "2026-11-27 21:04"},
        {"item": "b", "annotator": "ana", "status": "submitted", "given": "taken from the queue",
         "since (UTC)": "2026-11-27 21:04"},
    ]  # fmt: skip
    assert assignments_table([]).empty


def test_fact_versions_in_words() -> None:
    rows = [
        {"field": "gold_facts", "version": 2, "facts": ["to Paris", "on Monday"],
         "source": "edit", "created_by": "boss", "created_at": datetime(2026, 1, 2, 3, 4, 5)},
    ]  # fmt: skip
    table = fact_versions_table(rows)
    assert list(table.columns) == ["field", "version", "facts", "source", "by", "when (UTC)"]
    assert table.loc[0, "facts"] == "to Paris; on Monday"
    assert table.loc[0, "when (UTC)"] == "2026-01-02 03:04"


def test_the_assignments_tab_shows_the_table_in_words(
    monkeypatch: pytest.MonkeyPatch, store: Store, tmp_path
) -> None:
    store.create_project("p", "score")
    items = tmp_path / "items.csv"
    items.write_text("item_id,text\na,hello\nb,bye\n")
    import_items(store, "p", items)
    store.ensure_annotator("ana")
    asg.assign(store, "p", ["a"], "ana")
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="p")
    assert_ok(at)
    table = next(d.value for d in at.dataframe if "given" in d.value.columns)
    row = table.iloc[0]
    assert (row["item"], row["annotator"], row["status"], row["given"]) == (
        "a",
        "ana",
        "to do",
        "assigned by an admin",
    )
    assert WHEN.match(row["since (UTC)"])


def test_gold_answers_read_as_field_and_value() -> None:
    from ui.study.admin_view import answers_text

    assert answers_text({"resolution": 0.2}) == "resolution: 0.2"
    assert answers_text({"match": 1.0, "gold_fact_labels": ["C", "M"]}) == (
        "match: 1; gold_fact_labels: C, M"
    )
    assert answers_text("yes") == "yes"
