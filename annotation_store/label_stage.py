"""A SQLite label import that no reader sees until it is whole: staged, then moved in.

The new labels are first written to a temporary table of the importing connection
(``temp.label_stage``: SQLite keeps it outside the database file, so filling it takes
no write lock and a killed process leaves nothing of it), with the annotator's name
rather than an id, so that even the annotators the import creates wait for the end.
Then one write transaction creates those annotators, applies the changed labels with
their history rows, copies the staged labels in with ``INSERT ... SELECT`` (their first
history rows and item progress likewise inside the database) and commits. A reader, in
this process or another, sees none of the import or all of it; a ``kill -9`` at any
moment leaves none of it and nothing to take back.

That transaction holds SQLite's only write lock all along (300,000 labels: 13.6 s at
load 10 on the shared 2-core machine), so only imports of up to :data:`ATOMIC_LABELS`
labels go this way, which keeps a label save's wait within what one chunk of the chunked
path costs. Larger imports are written in chunks
(:func:`~annotation_store.label_import.write_chunked`) under a journal
(:mod:`annotation_store.import_journal`): all or nothing after the next start, but their
rows are visible while they run and between a kill and that start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from annotation_store.label_import import (
    CheckedRows,
    ImportPlan,
    _chunks,
    _first_history,
    _write_changed,
    sync_progress,
)
from annotation_store.models import Annotation

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection
    from sqlalchemy.orm import Session

#: The most labels (new and changed) a SQLite import writes in one transaction; its
#: write lock then lasts about as long as one chunk of the chunked path (at load 18,
#: 10,000 labels held it 1.5-1.8 s in one transaction against 0.5-0.6 s per chunk).
ATOMIC_LABELS = 4_000

_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS label_stage (annotator TEXT NOT NULL, "
    "item_pk INTEGER NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, "
    "status TEXT NOT NULL)"
)
_MOVE = (
    "INSERT INTO annotations (project_id, item_pk, annotator_id, field, value, status, "
    "guideline_version, created_at, updated_at) "
    "SELECT ?, st.item_pk, an.id, st.field, st.value, st.status, ?, ?, ? "
    "FROM temp.label_stage AS st JOIN annotators AS an ON an.name = st.annotator "
    "ORDER BY st.rowid"
)


def fits(checked: CheckedRows) -> bool:
    """Whether an import of these rows is written in one transaction."""
    return len(checked.labels) <= ATOMIC_LABELS


def placeholder_people(names: Sequence[str], known: Mapping[str, int]) -> dict[str, int]:
    """Annotator ids for planning: a name new to the workbench has no label yet, so a
    placeholder id (negative) plans all its rows as new; the move finds its real id."""
    return {name: known.get(name, -1 - n) for n, name in enumerate(names)}


def stage(conn: Connection, plan: ImportPlan, names: Mapping[int, str]) -> None:
    """Write the plan's new labels to ``temp.label_stage`` (no write lock: a deferred
    transaction that writes only the temporary database)."""
    conn.exec_driver_sql(_STAGE)
    conn.exec_driver_sql("DELETE FROM temp.label_stage")
    rows = [
        (names[r["annotator_id"]], r["item_pk"], r["field"], json.dumps(r["value"]), r["status"])
        for r in plan.new
    ]
    cursor = conn.connection.driver_connection.cursor()
    try:
        cursor.executemany("INSERT INTO temp.label_stage VALUES (?, ?, ?, ?, ?)", rows)
    finally:
        cursor.close()
    conn.commit()


def unstage(conn: Connection) -> None:
    """Drop the stage (after the move, or a failure) in a transaction of its own."""
    if conn.in_transaction():
        conn.rollback()
    # the write lock's BEGIN IMMEDIATE is an option of the connection now
    conn.execution_options(sqlite_begin="DEFERRED")
    conn.exec_driver_sql("DROP TABLE IF EXISTS temp.label_stage")
    conn.commit()


def write_staged(
    s: Session,
    project_id: int,
    guideline_version: int,
    plan: ImportPlan,
    source: str,
    now: datetime,
) -> None:
    """The plan's changed labels with their history rows, then the staged new ones
    (inside the caller's one write transaction, the import's annotators made)."""
    for changed in _chunks(plan.changed):
        _write_changed(s, project_id, changed, source, now)
    move_staged(s, project_id, guideline_version, source, now)


def move_staged(
    s: Session, project_id: int, guideline_version: int, source: str, now: datetime
) -> None:
    """Copy the staged labels in, with their first history rows and item progress
    (inside the caller's write transaction)."""
    stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f")  # as SQLAlchemy's DateTime writes it
    before = s.scalar(select(func.coalesce(func.max(Annotation.id), 0)))
    # Holding the write lock, the staged rows get the ids after ``before``.
    s.connection().exec_driver_sql(_MOVE, (project_id, guideline_version, stamp, stamp))
    a = Annotation.__table__
    s.execute(_first_history(a.c.id > before, source, now))
    sync_progress(s, project_id, now, select(a.c.item_pk).where(a.c.id > before))
