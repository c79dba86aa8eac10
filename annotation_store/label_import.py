"""Bulk label import in SQLAlchemy Core: checked first, then written in a few statements.

``Store.import_labels`` used to build one ORM object per label and let the unit of work
flush them, then walk every (item, annotator) pair in Python to sync progress; at 300,000
labels that was nearly two minutes. Here the rows are checked and planned in memory
(nothing is written until every row passed), then:

- changed labels are updated by primary key in one executemany, and a history row with
  the old and new value is appended for each;
- new labels are inserted in chunks, each chunk's first history rows copied from the new
  rows inside the database: on SQLite a multi-row INSERT ... RETURNING id, then one
  ``INSERT ... SELECT``; on PostgreSQL one statement over ``unnest`` of column arrays;
- item progress follows the labels in one ``INSERT ... SELECT ... GROUP BY ... ON CONFLICT
  DO UPDATE`` over the chunk's items, on SQLite and PostgreSQL alike.

On SQLite :func:`write_chunked` writes each chunk in its own short transaction, so a label
save from the app waits for one chunk (a fraction of a second), not the whole import;
SQLite has one writer at a time, and a 300,000-label import in one transaction held it
for over a minute. It stays all-or-nothing for the importer: every row is checked before
the first chunk, and if a later chunk fails, what the earlier ones wrote is undone (see
:func:`undo_import`); a killed importer's journal has the next start undo it the same way
(:mod:`annotation_store.import_journal`). While it runs, readers may see the labels
written so far (imports of up to ``label_stage.ATOMIC_LABELS`` labels are staged and moved
in by one transaction instead: :mod:`annotation_store.label_stage`). On PostgreSQL :func:`write_at_once` writes the same statements in one
transaction: its row locks keep other annotators' saves going, and a killed importer's
transaction is simply rolled back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Select,
    bindparam,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    text,
    update,
)

from annotation_store.fast_columns import RawColumns
from annotation_store.label_writes import STATUSES, append_history
from annotation_store.models import Annotation, AnnotationHistory, Annotator, ItemProgress
from annotation_store.records import ImportReport
from annotation_store.store_base import StoreError, dialect_insert

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

#: Rows per write transaction (and per INSERT / executemany): on SQLite one chunk holds
#: the write lock for about 0.2 s on a busy 2-core machine, so a label save waits that
#: long at most, not for the whole import.
CHUNK = 2_000

Key = tuple[int, int, str]  # (item pk, annotator id, field)
#: ``write()``: a context manager giving one short write transaction's session.
WriteFn = Any


@dataclass
class CheckedRows:
    """Import rows after the checks: item pks and stripped annotator names resolved."""

    # (item pk, annotator name, field, value, status), one per distinct label key
    labels: list[tuple[int, str, str, Any, str]] = field(default_factory=list)
    duplicates: int = 0  # rows repeating an earlier row exactly (counted unchanged)
    names: list[str] = field(default_factory=list)  # annotators, in first-seen order


def check_rows(rows: Sequence[Mapping[str, Any]], items: Mapping[str, int]) -> CheckedRows:
    """Check every row before anything is written; raise :class:`StoreError` naming the
    first bad row (1-based). A row repeating an earlier one is kept once; the same label
    with another value or status is refused (which one should win is not clear)."""
    out = CheckedRows()
    first: dict[tuple[int, str, str], tuple[int, Any, str]] = {}
    seen_names: set[str] = set()
    for number, row in enumerate(rows, start=1):
        item_pk, name, field_name, value, status = _checked(number, row, items)
        key = (item_pk, name, field_name)
        earlier = first.get(key)
        if earlier is not None:
            if (earlier[1], earlier[2]) != (value, status):
                raise StoreError(
                    f"row {number}: conflicts with row {earlier[0]} for the same item, "
                    "annotator and field"
                )
            out.duplicates += 1
            continue
        first[key] = (number, value, status)
        out.labels.append((item_pk, name, field_name, value, status))
        if name not in seen_names:
            seen_names.add(name)
            out.names.append(name)
    return out


def _checked(
    number: int, row: Mapping[str, Any], items: Mapping[str, int]
) -> tuple[int, str, str, Any, str]:
    """One row's item pk, annotator name, field, value and status, or a StoreError."""
    missing = [k for k in ("item_id", "annotator", "field", "value", "status") if k not in row]
    if missing:
        raise StoreError(f"row {number}: missing {', '.join(missing)}")
    item_pk = items.get(str(row["item_id"]))
    if item_pk is None:
        raise StoreError(f"row {number}: no item {str(row['item_id'])!r} in this project")
    name = str(row["annotator"]).strip()
    if not name:
        raise StoreError(f"row {number}: the annotator name is empty")
    status = row["status"]
    if status not in STATUSES:
        raise StoreError(f"row {number}: status must be one of {STATUSES}, got {status!r}")
    return item_pk, name, str(row["field"]), row["value"], status


def existing_labels(
    s: Session, project_id: int, is_sqlite: bool
) -> dict[Key, tuple[int, Any, str]]:
    """The project's labels: key -> (id, value, status), read without per-row decoding."""
    raw = RawColumns(is_sqlite)
    q = select(
        Annotation.item_pk,
        Annotation.annotator_id,
        Annotation.field,
        Annotation.id,
        raw.text(Annotation.value),
        Annotation.status,
    ).where(Annotation.project_id == project_id)
    rows = raw.fetch(s, q)
    values = raw.decode_json([r[4] for r in rows])
    return {(r[0], r[1], r[2]): (r[3], v, r[5]) for r, v in zip(rows, values, strict=True)}


@dataclass
class ImportPlan:
    """What the import will write."""

    new: list[dict[str, Any]] = field(default_factory=list)
    # (annotation id, old value, old status, new value, new status)
    changed: list[tuple[int, Any, str, Any, str]] = field(default_factory=list)
    unchanged: int = 0

    def report(self) -> ImportReport:
        """What the written plan did, counted."""
        return ImportReport(
            created=len(self.new), updated=len(self.changed), unchanged=self.unchanged
        )


def plan_import(
    checked: CheckedRows, people: Mapping[str, int], existing: Mapping[Key, tuple[int, Any, str]]
) -> ImportPlan:
    """Split the checked labels into inserts, updates and no-ops."""
    plan = ImportPlan(unchanged=checked.duplicates)
    for item_pk, name, field_name, value, status in checked.labels:
        key = (item_pk, people[name], field_name)
        current = existing.get(key)
        if current is None:
            plan.new.append(
                {
                    "item_pk": key[0],
                    "annotator_id": key[1],
                    "field": field_name,
                    "value": value,
                    "status": status,
                }
            )
        elif current[1] == value and current[2] == status:
            plan.unchanged += 1
        else:
            plan.changed.append((current[0], current[1], current[2], value, status))
    return plan


def write_chunked(
    write: WriteFn,
    project_id: int,
    guideline_version: int,
    plan: ImportPlan,
    source: str,
    now: datetime,
    is_sqlite: bool = False,
) -> ImportReport:
    """Update, insert and record history as planned, one short transaction per chunk
    (SQLite, where a writer holds the only write lock).

    Progress follows each chunk's items in the same transaction. If any chunk fails,
    the chunks already written are undone with the annotators this import created
    (:func:`undo_import`) and the error is raised: nothing is imported. A process killed
    meanwhile leaves its journal (:mod:`annotation_store.import_journal`), and the next
    start undoes it the same way.
    """
    encoded = sqlite_rows(plan.new, project_id, guideline_version, now) if is_sqlite else None
    try:
        for changed in _chunks(plan.changed):
            with write() as s:
                _write_changed(s, project_id, changed, source, now)
            _let_others_write(is_sqlite)
        for start in range(0, len(plan.new), CHUNK):
            new = plan.new[start : start + CHUNK]
            rows = encoded[start : start + CHUNK] if encoded is not None else None
            with write() as s:
                _insert_new(s, project_id, guideline_version, new, source, now, rows)
            _let_others_write(is_sqlite)
    except BaseException:
        with write() as s:
            undo_import(s, project_id, source, now)
        raise
    return plan.report()


def write_at_once(
    s: Session,
    project_id: int,
    guideline_version: int,
    plan: ImportPlan,
    source: str,
    now: datetime,
) -> ImportReport:
    """The same writes in the caller's one transaction (PostgreSQL: its row locks let
    label saves of other annotators go on meanwhile, and a killed importer's transaction
    is rolled back by the server, so nothing of it is ever seen)."""
    for changed in _chunks(plan.changed):
        _write_changed(s, project_id, changed, source, now)
    for start in range(0, len(plan.new), CHUNK):
        _insert_new(s, project_id, guideline_version, plan.new[start : start + CHUNK], source, now)
    return plan.report()


def _write_changed(
    s: Session,
    project_id: int,
    changed: Sequence[tuple[int, Any, str, Any, str]],
    source: str,
    now: datetime,
) -> None:
    _update_changed(s, changed, now)
    append_history(s, project_id, changed, source, now)
    sync_progress(s, project_id, now, _items_of(s, [c[0] for c in changed]))


#: SQLite: pause between chunks, so a writer of another process polling in its busy
#: handler (sleeps of up to 50 ms in its first half second) gets the lock before the next
#: chunk takes it again.
PAUSE_S = 0.05


def _let_others_write(is_sqlite: bool) -> None:
    if is_sqlite:
        time.sleep(PAUSE_S)


def undo_import(s: Session, project_id: int, source: str, now: datetime) -> int:
    """Take back what the import stamped ``now`` wrote; the number of labels it touched.

    Read from the database, so it works for a failed chunk and for a killed process
    alike: the import's history rows (``source``, changed at ``now``) name its labels;
    labels created at ``now`` are deleted, changed ones get their old value and status
    back from their history row, progress follows again (a progress row the import
    created for a pair with no label left is removed), and so are the annotators it
    created (stamped ``now``, external) that have no label.
    """
    a, h, p = Annotation.__table__, AnnotationHistory.__table__, ItemProgress.__table__
    people = Annotator.__table__
    stamped = (h.c.project_id == project_id) & (h.c.source == source) & (h.c.changed_at == now)
    touched = select(h.c.annotation_id).where(stamped)
    items = sorted(set(s.scalars(select(a.c.item_pk).where(a.c.id.in_(touched)).distinct())))
    restore = [
        {"ann_id": r[0], "old_value": r[1], "old_status": r[2]}
        for r in s.execute(
            select(h.c.annotation_id, h.c.old_value, h.c.old_status).where(
                stamped, h.c.old_status.is_not(None)
            )
        )
    ]
    count = int(s.scalar(select(func.count()).select_from(h).where(stamped)) or 0)
    s.execute(delete(h).where(stamped))
    s.execute(delete(a).where(a.c.project_id == project_id, a.c.created_at == now))
    back = (
        update(a)
        .where(a.c.id == bindparam("ann_id"))
        .values(value=bindparam("old_value"), status=bindparam("old_status"))
    )
    for chunk in _chunks(restore):
        s.execute(back, list(chunk))
    for chunk in _chunks(items):
        sync_progress(s, project_id, now, chunk)
    labelled = select(a.c.id).where(
        a.c.item_pk == p.c.item_pk, a.c.annotator_id == p.c.annotator_id
    )
    s.execute(
        delete(p).where(p.c.project_id == project_id, p.c.started_at == now, ~labelled.exists())
    )
    s.execute(
        delete(people).where(
            people.c.created_at == now,
            people.c.external.is_(True),
            ~select(a.c.id).where(a.c.annotator_id == people.c.id).exists(),
            ~select(p.c.id).where(p.c.annotator_id == people.c.id).exists(),
        )
    )
    return count


def _items_of(s: Session, annotation_ids: Sequence[int]) -> list[int]:
    """The item pks of these labels."""
    a = Annotation.__table__
    found: set[int] = set()
    for chunk in _chunks(annotation_ids):
        found.update(s.scalars(select(a.c.item_pk).where(a.c.id.in_(list(chunk)))))
    return sorted(found)


def _chunks(rows: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), CHUNK):
        yield rows[start : start + CHUNK]


def _insert_new(
    s: Session,
    project_id: int,
    guideline_version: int,
    new: Sequence[dict[str, Any]],
    source: str,
    now: datetime,
    encoded: Sequence[tuple[Any, ...]] | None = None,
) -> None:
    """Insert the new labels, each with its first history row; progress follows.

    ``encoded`` (SQLite): the rows as :func:`sqlite_rows` made them, ahead of the write
    transaction, so the write lock is held for the database's work only.
    """
    if s.get_bind().dialect.name == "postgresql":
        fixed = {
            "project_id": project_id,
            "guideline_version": guideline_version,
            "created_at": now,
            "updated_at": now,
        }
        for chunk in _chunks(new):
            s.execute(_PG_INSERT, _pg_arrays(chunk) | fixed | {"source": source})
        sync_progress(s, project_id, now, sorted({r["item_pk"] for r in new}))
        return
    if encoded is None:
        encoded = sqlite_rows(new, project_id, guideline_version, now)
    before = s.scalar(select(func.coalesce(func.max(Annotation.id), 0)))
    # Holding the write lock, this transaction's rows get the ids after ``before``.
    cursor = s.connection().connection.driver_connection.cursor()
    try:
        cursor.executemany(_SQLITE_INSERT, encoded)
    finally:
        cursor.close()
    a = Annotation.__table__
    s.execute(_first_history(a.c.id > before, source, now))
    sync_progress(s, project_id, now, select(a.c.item_pk).where(a.c.id > before))


_SQLITE_INSERT = (
    "INSERT INTO annotations (project_id, item_pk, annotator_id, field, value, status, "
    "guideline_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def sqlite_rows(
    new: Sequence[dict[str, Any]], project_id: int, guideline_version: int, now: datetime
) -> list[tuple[Any, ...]]:
    """New labels as SQLite parameter tuples: JSON text values, the stored time format
    (what SQLAlchemy's JSON and DateTime types would write)."""
    stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f")
    return [
        (
            project_id,
            r["item_pk"],
            r["annotator_id"],
            r["field"],
            json.dumps(r["value"]),
            r["status"],
            guideline_version,
            stamp,
            stamp,
        )
        for r in new
    ]


# PostgreSQL: one statement per chunk whose parameters are five arrays, not 1,000-row
# VALUES lists (psycopg parses every such long statement in Python, which cost more
# than the database's work); the history rows come from the RETURNING of the insert.
_PG_INSERT = text(
    """
    WITH new AS (
        INSERT INTO annotations (project_id, item_pk, annotator_id, field, value, status,
                                 guideline_version, created_at, updated_at)
        SELECT :project_id, u.item_pk, u.annotator_id, u.field, u.value::json, u.status,
               :guideline_version, :created_at, :updated_at
        FROM unnest(CAST(:item_pks AS integer[]), CAST(:annotator_ids AS integer[]),
                    CAST(:fields AS text[]), CAST(:values AS text[]), CAST(:statuses AS text[]))
             AS u(item_pk, annotator_id, field, value, status)
        RETURNING id, project_id, value, status
    )
    INSERT INTO annotation_history (project_id, annotation_id, old_value, new_value,
                                    old_status, new_status, source, changed_at)
    SELECT project_id, id, NULL, value, NULL, status, :source, :updated_at
    FROM new ORDER BY id
    """
)


def _pg_arrays(chunk: Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
    """The chunk's columns as lists; values as JSON text (as SQLAlchemy's JSON type
    would write them)."""
    return {
        "item_pks": [r["item_pk"] for r in chunk],
        "annotator_ids": [r["annotator_id"] for r in chunk],
        "fields": [r["field"] for r in chunk],
        "values": [json.dumps(r["value"]) for r in chunk],
        "statuses": [r["status"] for r in chunk],
    }


def _first_history(which: Any, source: str, now: datetime) -> Any:
    """INSERT ... SELECT of the history rows of the just-inserted labels ``which`` selects:
    values and statuses are copied inside the database, not encoded again in Python."""
    a, h = Annotation.__table__, AnnotationHistory.__table__
    rows = (
        select(
            a.c.project_id,
            a.c.id,
            a.c.value,
            a.c.status,
            literal(source, h.c.source.type),
            literal(now, h.c.changed_at.type),
        )
        .where(which)
        .order_by(a.c.id)
    )
    columns = ["project_id", "annotation_id", "new_value", "new_status", "source", "changed_at"]
    return insert(h).from_select(columns, rows)


def _update_changed(
    s: Session, changed: Sequence[tuple[int, Any, str, Any, str]], now: datetime
) -> None:
    """Set the new value and status of changed labels (executemany by primary key)."""
    table = Annotation.__table__
    stmt = (
        update(table)
        .where(table.c.id == bindparam("ann_id"))
        .values(value=bindparam("new_value"), status=bindparam("new_status"), updated_at=now)
    )
    for chunk in _chunks(changed):
        s.execute(
            stmt,
            [{"ann_id": c[0], "new_value": c[3], "new_status": c[4]} for c in chunk],
        )


def sync_progress(
    s: Session, project_id: int, now: datetime, item_pks: Sequence[int] | Select[Any] | None = None
) -> None:
    """Make item progress follow label status for every (item, annotator) with labels
    (only on ``item_pks``, a list or a query of item pks, when given).

    The pair is submitted (or skipped) when all its labels are, else a draft. A missing
    progress row is created; an existing one changes only when its status differs (note,
    flag, timing and ``submitted_at`` are left alone).
    """
    a = Annotation.__table__
    lo, hi = func.min(a.c.status), func.max(a.c.status)
    status = case(
        ((lo == hi) & lo.in_(["submitted", "skipped"]), lo),
        else_=literal("draft"),
    )
    # A WHERE keeps SQLite's upsert unambiguous. With items given, only the item filter:
    # next to the project filter, SQLite walks the project's every label per chunk.
    where = a.c.project_id == project_id
    if item_pks is not None:
        where = a.c.item_pk.in_(item_pks if isinstance(item_pks, Select) else list(item_pks))
    pairs = (
        select(
            a.c.project_id,
            a.c.item_pk,
            a.c.annotator_id,
            status,
            literal(now, ItemProgress.started_at.type),
            literal(now, ItemProgress.updated_at.type),
            case((status == "submitted", literal(now, ItemProgress.submitted_at.type))),
            literal(""),
            literal(False),
            literal(0.0),
        )
        .where(where)
        .group_by(a.c.project_id, a.c.item_pk, a.c.annotator_id)
    )
    columns = [
        "project_id",
        "item_pk",
        "annotator_id",
        "status",
        "started_at",
        "updated_at",
        "submitted_at",
        "note",
        "flagged",
        "seconds_spent",
    ]
    stmt = dialect_insert(s, ItemProgress.__table__).from_select(columns, pairs)
    p = ItemProgress.__table__
    s.execute(
        stmt.on_conflict_do_update(
            index_elements=["item_pk", "annotator_id"],
            set_={"status": stmt.excluded.status, "updated_at": stmt.excluded.updated_at},
            where=p.c.status != stmt.excluded.status,
        )
    )
