"""A large import does not lock annotators out: label saves from another process's
connection succeed while 100,000 items are imported (SQLite, one writer at a time)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from annotation_store import Store
from annotation_store.item_upsert import BATCH
from tests.support.cli import ROOT

ROWS = 100_000


def _write_items(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.write("item_id,text\n")
        fh.writelines(f"i{i},text of item {i}\n" for i in range(n))


def test_label_saves_succeed_during_a_large_import(sqlite_url: str, tmp_path: Path) -> None:
    store = Store(sqlite_url)
    store.create_project("big", "binary")
    store.create_project("work", "binary")
    store.upsert_items("work", [{"item_id": "w", "fields": {"text": "t"}}])
    store.ensure_annotator("ann")
    items = tmp_path / "items.csv"
    _write_items(items, ROWS)
    importer = subprocess.Popen(
        [sys.executable, "cli.py", "--db", sqlite_url, "import", "items", "big", str(items)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    saves = 0
    try:
        while importer.poll() is None:
            # Each save is its own write transaction from this process; under the old
            # import it waited out the 30 s busy timeout and failed "database is locked".
            value = saves % 2
            store.save_label("work", "w", "ann", "label", value, status="draft")
            saves += 1
            time.sleep(0.05)
        out, err = importer.communicate(timeout=600)
    finally:
        if importer.poll() is None:
            importer.kill()
    assert importer.returncode == 0, err
    assert out.strip() == f"items: {ROWS} created, 0 updated, 0 unchanged"
    assert saves > 0
    assert store.item_count("big") == ROWS
    labels = store.annotations_frame("work", statuses=("draft",))
    assert list(labels["value"]) == [(saves - 1) % 2]
    store.close()


def test_bulk_upsert_creates_updates_and_versions_facts(any_store: Store) -> None:
    store = any_store
    store.create_project("im", "intent_match")
    n = BATCH + 10  # more than one executemany batch
    rows = [
        {"item_id": f"i{i}", "fields": {"gold": "g", "predicted": "p", "gold_facts": [f"f{i}"]}}
        for i in range(n)
    ]
    first = store.upsert_items("im", rows)
    assert (first.created, first.updated, first.unchanged) == (n, 0, 0)
    items = store.items("im")
    assert [i.position for i in items] == list(range(n))
    assert items[-1].fields["gold_facts"] == [f"f{n - 1}"]
    rows[3] = {**rows[3], "fields": {**rows[3]["fields"], "gold_facts": ["new"]}, "split": "dev"}
    again = store.upsert_items("im", [*rows, {"item_id": "extra", "fields": rows[0]["fields"]}])
    assert (again.created, again.updated, again.unchanged) == (1, 1, n - 1)
    changed = store.item("im", "i3")
    assert changed.fields["gold_facts"] == ["new"] and changed.split == "dev"
    assert store.item("im", "extra").position == n
    assert [(v["version"], v["facts"]) for v in store.fact_versions("im", "i3")] == [
        (1, ["f3"]),
        (2, ["new"]),
    ]
    assert [v["version"] for v in store.fact_versions("im", "extra")] == [1]
