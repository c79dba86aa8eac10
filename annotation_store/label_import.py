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
  DO UPDATE`` over the project's labels, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, func, insert, literal, select, text, update
from sqlalchemy.orm import Session

from annotation_store.fast_columns import RawColumns
from annotation_store.label_writes import STATUSES, append_history
from annotation_store.models import Annotation, AnnotationHistory, ItemProgress
from annotation_store.records import ImportReport
from annotation_store.store_base import StoreError, dialect_insert

#: Rows per INSERT / executemany batch: bounds the statement size and the memory held
#: by one batch's parameters.
CHUNK = 5_000

Key = tuple[int, int, str]  # (item pk, annotator id, field)


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


def write_plan(
    s: Session,
    project_id: int,
    guideline_version: int,
    plan: ImportPlan,
    source: str,
    now: datetime,
) -> ImportReport:
    """Update, insert and record history as planned; sync progress; return the counts."""
    if plan.changed:
        _update_changed(s, plan.changed, now)
        for chunk in _chunks(plan.changed):
            append_history(s, project_id, chunk, source, now)
    _insert_new(s, project_id, guideline_version, plan.new, source, now)
    sync_progress(s, project_id, now)
    return ImportReport(created=len(plan.new), updated=len(plan.changed), unchanged=plan.unchanged)


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
) -> None:
    """Insert the new labels, each with its first history row."""
    table = Annotation.__table__
    fixed = {
        "project_id": project_id,
        "guideline_version": guideline_version,
        "created_at": now,
        "updated_at": now,
    }
    if s.get_bind().dialect.name == "postgresql":
        for chunk in _chunks(new):
            s.execute(_PG_INSERT, _pg_arrays(chunk) | fixed | {"source": source})
        return
    # executemany with RETURNING: SQLAlchemy sends multi-row INSERTs ("insertmanyvalues").
    stmt = insert(table).returning(table.c.id)
    for chunk in _chunks(new):
        ids = s.scalars(stmt, [{**row, **fixed} for row in chunk]).all()
        s.execute(_first_history(ids, source, now))


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


def _first_history(ids: Sequence[int], source: str, now: datetime) -> Any:
    """INSERT ... SELECT of the history rows of just-inserted labels: values and statuses
    are copied inside the database, not encoded again in Python."""
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
        .where(a.c.id.in_(ids))
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


def sync_progress(s: Session, project_id: int, now: datetime) -> None:
    """Make item progress follow label status for every (item, annotator) with labels.

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
        .where(a.c.project_id == project_id)  # a WHERE keeps SQLite's upsert unambiguous
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
