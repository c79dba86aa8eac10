"""A label import killed with SIGKILL at any moment leaves none of its rows.

SQLite, up to ``label_stage.ATOMIC_LABELS`` labels: the import is staged in a temporary
table and moved in by one transaction, so no reader ever sees a part of it and a killed
one leaves nothing. SQLite, larger: the import writes in short transactions (label saves
wait for one chunk, not the whole import), so a killed one leaves rows behind; its
journal makes the next start take them back and say so. PostgreSQL: the import is one
transaction the server rolls back. A child process imports; a hook stops it at the
chosen moment and tells the test, which meanwhile counts what another open store sees,
kills it with SIGKILL and opens the database again, as the next start would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotation_store import Store

ROOT = Path(__file__).resolve().parents[1]
ITEMS = 3_000

CHILD = """
import sys, time
from pathlib import Path

from annotation_store import Store, label_import, label_stage, store_labels
from annotation_store.import_journal import Journal

url, signal_file, point, mode = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
# SQLite: staged (the path of small imports) or chunked (of large ones), whatever the cap
label_stage.ATOMIC_LABELS = 0 if mode == "chunked" else 10**6


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


if point == "staged":  # the new labels in the temporary table
    after(label_stage, "stage", lambda n: True)
elif point == "moved":  # every row written inside the one transaction, not committed
    after(label_stage, "move_staged", lambda n: True)
elif point == "planned":  # planned; chunked: the new annotators are in, no label yet
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


def _url(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'wb.db'}"
    return str(request.getfixturevalue("pg_url"))


def _visible(store: Store) -> tuple[int, int, int]:
    """Labels, history rows and annotators another process sees, in ONE statement (one
    snapshot on PostgreSQL too)."""
    from annotation_store.models import Annotation, AnnotationHistory, Annotator

    with store.read() as s:
        row = s.execute(
            select(
                *(
                    select(func.count()).select_from(table).scalar_subquery()
                    for table in (Annotation, AnnotationHistory, Annotator)
                )
            )
        ).one()
    return (int(row[0]), int(row[1]), int(row[2]))


#: What a reader sees before the import, and after it completed.
BEFORE = (ITEMS, ITEMS, 1)
AFTER = (3 * ITEMS, 4 * ITEMS, 3)  # history: rater0 before, its changes, 2 x ITEMS new


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


def _prepare(url: str) -> dict[str, object]:
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
    assert _visible(store) == BEFORE
    store.close()
    assert before == {
        "labels": ITEMS,
        "values": [0],
        "history": ITEMS,
        "progress": ITEMS,
        "annotators": ["rater0"],
    }
    return before


def _start(url: str, tmp_path: Path, point: str, mode: str) -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen(
        [sys.executable, str(script), url, str(tmp_path / "stopped"), point, mode],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


CASES = [
    ("sqlite", "staged", "planned"),
    ("sqlite", "staged", "staged"),
    ("sqlite", "staged", "moved"),
    ("sqlite", "chunked", "planned"),
    ("sqlite", "chunked", "midway"),
    ("sqlite", "chunked", "written"),
    ("postgresql", "one", "planned"),
    ("postgresql", "one", "midway"),
    ("postgresql", "one", "written"),
]


@pytest.mark.parametrize(("backend", "mode", "point"), CASES, ids=["-".join(c) for c in CASES])
def test_a_killed_label_import_leaves_none_of_its_rows(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str, mode: str, point: str
) -> None:
    """Killed at ``point``; meanwhile another open store counts what it sees at every
    poll: none of the import (staged on SQLite, PostgreSQL), or, on SQLite's chunked
    path for large imports, the rows written so far until the next start."""
    url = _url(request, tmp_path, backend)
    before = _prepare(url)
    reader = Store(url, migrate=False)  # the app server, already running
    polls: list[tuple[int, int, int]] = []
    child = _start(url, tmp_path, point, mode)
    signal_file = tmp_path / "stopped"
    try:
        deadline = time.monotonic() + 300  # a safety net for a broken hook, not a measure
        while not signal_file.exists() and child.poll() is None:
            assert time.monotonic() < deadline, "the child never reached the kill point"
            polls.append(_visible(reader))
            time.sleep(0.05)
        assert child.poll() is None, child.communicate()
        polls.append(_visible(reader))  # stopped at the point, still holding its work
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.communicate()
    assert child.returncode == -signal.SIGKILL
    try:
        polls.append(_visible(reader))  # killed, before any next start
    finally:
        reader.close()
    if mode != "chunked":
        assert polls and set(polls) == {BEFORE}

    if mode == "chunked":  # what the killed chunks left, before the next start
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
        if mode != "chunked":  # nothing was written: nothing to take back or say
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


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_reader_sees_none_of_a_running_import_then_all_of_it(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    """An import left to finish while another open store polls: every poll sees the
    database as before the import or as after it, never a part."""
    url = _url(request, tmp_path, backend)
    _prepare(url)
    reader = Store(url, migrate=False)
    polls: list[tuple[int, int, int]] = []
    child = _start(url, tmp_path, "none", "staged")
    try:
        while child.poll() is None:
            polls.append(_visible(reader))
            time.sleep(0.01)
        out, err = child.communicate()
        assert child.returncode == 0, err
        assert out == "finished\n"
        polls.append(_visible(reader))
    finally:
        child.kill()
        reader.close()
    assert set(polls) <= {BEFORE, AFTER} and polls[0] == BEFORE and polls[-1] == AFTER
    assert len(polls) > 5  # the import was watched while it ran


def test_a_running_app_takes_back_a_killed_chunked_import_before_its_next_figure(
    tmp_path: Path,
) -> None:
    """The app server's store, open all along, reads a project's data version (every
    analysis page does, before any figure): a killed chunked import's rows are taken back
    then, not only at the next start, and the line saying so is kept."""
    url = f"sqlite:///{tmp_path / 'wb.db'}"
    before = _prepare(url)
    server = Store(url)  # opened before the import starts
    child = _start(url, tmp_path, "midway", "chunked")
    try:
        deadline = time.monotonic() + 300  # a safety net for a broken hook, not a measure
        while not (tmp_path / "stopped").exists() and child.poll() is None:
            assert time.monotonic() < deadline, "the child never reached the kill point"
            time.sleep(0.05)
        assert child.poll() is None, child.communicate()
        server.data_version("p")  # the import is alive: its rows are left alone
        assert _visible(server) != BEFORE and server.recovered_imports == []
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.communicate()
    try:
        server.data_version("p")
        assert _counts(server) == before
        [line] = server.recovered_imports
        assert "was stopped before it finished" in line and "taken back" in line
        server.data_version("p")  # said once
        assert len(server.recovered_imports) == 1
    finally:
        server.close()
