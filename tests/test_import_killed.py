"""A label import killed with SIGKILL at any moment leaves none of its rows.

SQLite: the import writes in short transactions (label saves wait for one chunk, not the
whole import), so a killed one leaves rows behind; its journal makes the next start take
them back and say so. PostgreSQL: the import is one transaction the server rolls back.
A child process imports; a hook stops it at the chosen moment and tells the test, which
kills it with SIGKILL and opens the database again, as the next start would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotation_store import Store

ROOT = Path(__file__).resolve().parents[1]
ITEMS = 3_000

CHILD = """
import sys, time
from pathlib import Path

from annotation_store import Store, label_import, store_labels
from annotation_store.import_journal import Journal

url, signal_file, point = sys.argv[1], Path(sys.argv[2]), sys.argv[3]


def stop() -> None:
    signal_file.write_text("stopped")
    time.sleep(600)  # until the test kills this process


def after(module, name, when):
    original = getattr(module, name)
    calls = []

    def hooked(*args, **kwargs):
        out = original(*args, **kwargs)
        calls.append(1)
        if when(len(calls)):
            stop()
        return out

    setattr(module, name, hooked)


if point == "planned":  # the new annotators are in, no label yet
    after(store_labels, "plan_import", lambda n: True)
elif point == "midway":  # the changed labels and the first chunk of new ones
    after(label_import, "_let_others_write", lambda n: n == 3)  # SQLite: after a commit
    after(label_import, "_insert_new", lambda n: n == 1 and "postgresql" in url)
elif point == "written":  # every chunk written, the import not yet over
    Journal.finish = lambda self: stop()
    after(store_labels, "write_at_once", lambda n: True)
store = Store(url)
rows = [
    {"item_id": f"i{i}", "annotator": name, "field": "label", "value": 1, "status": "submitted"}
    for name in ("rater0", "rater1", "rater2")
    for i in range(ITEMS)
]
store.import_labels("p", rows)
print("finished")
""".replace("ITEMS", str(ITEMS))


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'wb.db'}"
        return
    pg_url = request.getfixturevalue("pg_url")
    yield pg_url


def _counts(store: Store) -> dict[str, object]:
    from annotation_store.models import Annotation, AnnotationHistory, Annotator, ItemProgress

    with store.read() as s:
        return {
            "labels": s.scalar(select(func.count()).select_from(Annotation)),
            "values": sorted(set(s.scalars(select(Annotation.value)))),
            "history": s.scalar(select(func.count()).select_from(AnnotationHistory)),
            "progress": s.scalar(select(func.count()).select_from(ItemProgress)),
            "annotators": sorted(s.scalars(select(Annotator.name))),
        }


@pytest.mark.parametrize("point", ["planned", "midway", "written"])
def test_a_killed_label_import_leaves_none_of_its_rows(
    url: str, tmp_path: Path, point: str
) -> None:
    store = Store(url)
    store.create_project("p", "binary")
    store.upsert_items("p", [{"item_id": f"i{i}", "fields": {"text": "t"}} for i in range(ITEMS)])
    store.import_labels(  # rater0's labels, which the killed import changes from 0 to 1
        "p",
        [
            {"item_id": f"i{i}", "annotator": "rater0", "field": "label", "value": 0}
            | {"status": "submitted"}
            for i in range(ITEMS)
        ],
    )
    before = _counts(store)
    store.close()
    assert before == {
        "labels": ITEMS,
        "values": [0],
        "history": ITEMS,
        "progress": ITEMS,
        "annotators": ["rater0"],
    }
    script, signal_file = tmp_path / "child.py", tmp_path / "stopped"
    script.write_text(CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script), url, str(signal_file), point],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300  # a safety net for a broken hook, not a measure
        while not signal_file.exists() and child.poll() is None:
            assert time.monotonic() < deadline, "the child never reached the kill point"
            time.sleep(0.05)
        assert child.poll() is None, child.communicate()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.communicate()
    assert child.returncode == -signal.SIGKILL

    if "postgresql" not in url:  # what the killed chunks left, before the next start
        left = Store(url, migrate=False)
        try:
            written = _counts(left)["history"]
        finally:
            left.close()
        assert (
            written == {"planned": ITEMS, "midway": 2 * ITEMS + 2_000, "written": 4 * ITEMS}[point]
        )
    again = Store(url)  # the next start
    try:
        assert _counts(again) == before
        if "postgresql" in url:
            assert again.recovered_imports == []
        else:
            touched = {"planned": 0, "midway": ITEMS + 2_000, "written": 3 * ITEMS}[point]
            [line] = again.recovered_imports
            assert line.startswith("a label import into 'p' (import, started ")
            assert line.endswith(
                f"was stopped before it finished; the {touched:,} labels it had written "
                "were taken back, so none of that import is in the database: import the "
                "file again"
            )
    finally:
        again.close()
    reopened = Store(url)  # said once: the journal is gone
    try:
        assert reopened.recovered_imports == []
    finally:
        reopened.close()
