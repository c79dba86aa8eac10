"""The label save path in few statements: one lookup, one row lock, Core writes.

Every choice an annotator makes is saved the moment it is given, so this path runs on
every click of every annotator at once. It uses SQLAlchemy Core instead of the ORM's unit
of work, and as few round trips as the guarantees allow:

- one SELECT finds the project, the item and the annotator (and can lock the project row
  for the assignment rules);
- the label row is read ``FOR UPDATE`` before it changes, so two writers of the same
  label never append the same old value to the history twice;
- item progress is one ``INSERT ... ON CONFLICT DO UPDATE``.

Project rows are locked ``FOR NO KEY UPDATE`` on PostgreSQL: it serialises claims and
submits as ``FOR UPDATE`` did, but does not block the ``FOR KEY SHARE`` lock that every
insert referencing the project (labels, history, progress) takes, so label saves never
queue behind a claim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import Row, and_, bindparam, delete, insert, select, update

from annotation_store import tables
from annotation_store.records import SaveOutcome
from annotation_store.store_base import StoreError, dialect_insert

# Core tables, not the ORM classes: a statement on a class runs through the ORM's
# execution layer (about 0.1 ms more CPU per statement, inside the write lock).
_ANNOTATIONS = tables.annotations
_ANNOTATION_HISTORY = tables.annotation_history
_ANNOTATORS = tables.annotators
_ITEMS = tables.items
_ITEM_PROGRESS = tables.item_progress
_PROJECTS = tables.projects

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

STATUSES = ("draft", "submitted", "skipped")


@dataclass(frozen=True)
class LabelTarget:
    """What a label write needs to know about its project, item and annotator."""

    project_id: int
    kind: str
    settings: dict[str, Any] | None
    guideline_version: int
    item_pk: int
    item_fields: dict[str, Any]
    annotator_id: int | None  # None: no annotator of that name yet


def _target_query(lock_project: bool) -> Any:
    q = (
        select(
            _PROJECTS.c.id,
            _PROJECTS.c.kind,
            _PROJECTS.c.settings,
            _PROJECTS.c.guideline_version,
            _ITEMS.c.id,
            _ITEMS.c.fields,
            _ANNOTATORS.c.id,
        )
        .select_from(_PROJECTS)
        .outerjoin(
            _ITEMS,
            and_(_ITEMS.c.project_id == _PROJECTS.c.id, _ITEMS.c.item_id == bindparam("item")),
        )
        .outerjoin(_ANNOTATORS, _ANNOTATORS.c.name == bindparam("who"))
        .where(_PROJECTS.c.name == bindparam("project"))
    )
    return q.with_for_update(of=_PROJECTS, key_share=True) if lock_project else q


# Built once (with and without the project lock): this runs on every save and submit,
# and building the statement took several times the CPU of running it on SQLite; a
# built statement keeps its cache key, so each run only binds its parameters.
_TARGET: dict[bool, Any] = {}


def find_target(
    s: Session, project: str, item_id: str, annotator: str, *, lock_project: bool = False
) -> LabelTarget:
    """Project, item and annotator in one SELECT; raises :class:`StoreError` for an unknown
    project or item. ``lock_project`` locks the project row (claims and submits)."""
    if lock_project not in _TARGET:
        _TARGET[lock_project] = _target_query(lock_project)
    params = {"item": item_id, "who": annotator, "project": project}
    row = s.execute(_TARGET[lock_project], params).first()
    if row is None:
        raise StoreError(f"no project called {project!r}")
    if row[4] is None:
        raise StoreError(f"no item {item_id!r} in this project")
    return LabelTarget(*row)


# Statements built once, on first use, on the Core tables: a statement on an ORM class
# would map the models, which an evaluate process must not pay for before its first call
# (tests/test_evaluate_startup.py), and would run through the ORM's execution layer.
@cache
def _label_row_query() -> Any:
    return (
        select(_ANNOTATIONS.c.id, _ANNOTATIONS.c.value, _ANNOTATIONS.c.status)
        .where(
            _ANNOTATIONS.c.item_pk == bindparam("item_pk"),
            _ANNOTATIONS.c.annotator_id == bindparam("who"),
            _ANNOTATIONS.c.field == bindparam("field"),
        )
        .with_for_update()
    )


@cache
def _label_insert(dialect: str) -> Any:
    """A new label, unless a concurrent writer inserted it first (None returned then)."""
    cols = _ANNOTATIONS.c
    names = [
        "project_id",
        "item_pk",
        "annotator_id",
        "field",
        "value",
        "status",
        "guideline_version",
        "created_at",
        "updated_at",
    ]
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert_of
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert_of
    return (
        dialect_insert_of(_ANNOTATIONS)
        .values({n: bindparam(n, type_=cols[n].type) for n in names})
        .on_conflict_do_nothing(index_elements=["item_pk", "annotator_id", "field"])
        .returning(cols.id)
    )


@cache
def _label_update() -> Any:
    cols = _ANNOTATIONS.c
    return (
        update(_ANNOTATIONS)
        .where(cols.id == bindparam("label_id"))
        .values(
            value=bindparam("value", type_=cols.value.type),
            status=bindparam("status"),
            updated_at=bindparam("now", type_=cols.updated_at.type),
        )
    )


@cache
def _labels_status_update() -> Any:
    cols = _ANNOTATIONS.c
    return (
        update(_ANNOTATIONS)
        .where(cols.id.in_(bindparam("ids", expanding=True)))
        .values(
            status=bindparam("status"),
            updated_at=bindparam("now", type_=cols.updated_at.type),
        )
    )


def _label_row(s: Session, item_pk: int, who: int, field: str) -> Row[Any] | None:
    return s.execute(_label_row_query(), {"item_pk": item_pk, "who": who, "field": field}).first()


def upsert_label(
    s: Session,
    t: LabelTarget,
    who: int,
    field: str,
    value: Any,
    status: str,
    source: str,
    now: datetime,
) -> SaveOutcome:
    """Insert or update one (already validated) label and append the change to its history.

    The same value and status again changes nothing and writes no history.
    """
    if status not in STATUSES:
        raise ValueError(f"status must be one of {STATUSES}")
    old = _label_row(s, t.item_pk, who, field)
    if old is None:
        new_id = s.scalar(
            _label_insert(s.get_bind().dialect.name),
            dict(
                project_id=t.project_id,
                item_pk=t.item_pk,
                annotator_id=who,
                field=field,
                value=value,
                status=status,
                guideline_version=t.guideline_version,
                created_at=now,
                updated_at=now,
            ),
        )
        if new_id is not None:
            add_history(s, t.project_id, [(new_id, None, None, value)], status, source, now)
            return SaveOutcome("created", value)
        old = _label_row(s, t.item_pk, who, field)  # a concurrent writer inserted it first
        assert old is not None
    if old.value == value and old.status == status:
        return SaveOutcome("unchanged", value)
    s.execute(_label_update(), {"label_id": old.id, "value": value, "status": status, "now": now})
    add_history(s, t.project_id, [(old.id, old.value, old.status, value)], status, source, now)
    return SaveOutcome("updated", value)


def delete_label(s: Session, t: LabelTarget, who: int, field: str) -> bool:
    """Remove one label (its history goes with it); True when there was one."""
    old = _label_row(s, t.item_pk, who, field)
    if old is None:
        return False
    s.execute(delete(_ANNOTATIONS).where(_ANNOTATIONS.c.id == old.id))
    return True


@cache
def _item_labels_query() -> Any:
    return (
        select(_ANNOTATIONS.c.id, _ANNOTATIONS.c.field, _ANNOTATIONS.c.value, _ANNOTATIONS.c.status)
        .where(
            _ANNOTATIONS.c.item_pk == bindparam("item_pk"),
            _ANNOTATIONS.c.annotator_id == bindparam("who"),
        )
        .with_for_update()
    )


def set_labels_status(
    s: Session,
    t: LabelTarget,
    who: int,
    status: str,
    now: datetime,
    check: Callable[[str, Any], None] | None = None,
) -> int:
    """Give every label of ``who`` on the item ``status`` (values kept), with history;
    returns how many labels the annotator has on the item.

    ``check(field, value)`` sees every label first and raises to refuse the change (the
    labels are read once, locked, for both)."""
    rows = s.execute(_item_labels_query(), {"item_pk": t.item_pk, "who": who}).all()
    if check is not None:
        for r in rows:
            check(r.field, r.value)
    changed = [r for r in rows if r.status != status]
    if changed:
        s.execute(
            _labels_status_update(), {"ids": [r.id for r in changed], "status": status, "now": now}
        )
        history = [(r.id, r.value, r.status, r.value) for r in changed]
        add_history(s, t.project_id, history, status, "app", now)
    return len(rows)


def add_history(
    s: Session,
    project_id: int,
    changes: Sequence[tuple[int, Any, str | None, Any]],
    status: str,
    source: str,
    now: datetime,
) -> None:
    """Append history rows, one per (annotation id, old value, old status, new value),
    all with the new status ``status``."""
    append_history(s, project_id, [(*c, status) for c in changes], source, now)


# Core's executemany on the table: the ORM's bulk insert spent more CPU than the rows.
_HISTORY = insert(_ANNOTATION_HISTORY)


def append_history(
    s: Session,
    project_id: int,
    changes: Sequence[tuple[int, Any, str | None, Any, str]],
    source: str,
    now: datetime,
) -> None:
    """Append history rows, one per (annotation id, old value, old status, new value, new
    status), in one executemany."""
    s.execute(
        _HISTORY,
        [
            dict(
                project_id=project_id,
                annotation_id=ann_id,
                old_value=old_value,
                new_value=new_value,
                old_status=old_status,
                new_status=new_status,
                source=source,
                changed_at=now,
            )
            for ann_id, old_value, old_status, new_value, new_status in changes
        ],
    )


def touch_progress(
    s: Session, project_id: int, item_pk: int, who: int, now: datetime, **changes: Any
) -> None:
    """Mark the annotator active on the item now (creating their progress row as a draft
    if needed) and set ``changes`` (status, note, flag, timing) on it."""
    fresh = dict(
        project_id=project_id,
        item_pk=item_pk,
        annotator_id=who,
        status="draft",
        started_at=now,
        note="",
        flagged=False,
        seconds_spent=0.0,
    )
    s.execute(_progress_upsert(s, tuple(sorted(changes))), {**fresh, **changes, "updated_at": now})


_PROGRESS: dict[tuple[str, tuple[str, ...]], Any] = {}


def _progress_upsert(s: Session, changed: tuple[str, ...]) -> Any:
    """:func:`touch_progress`'s statement for one dialect and set of changed columns,
    built once (it runs on every save and submit)."""
    key = (s.get_bind().dialect.name, changed)
    if key not in _PROGRESS:
        cols = _ITEM_PROGRESS.c
        names = [
            "project_id",
            "item_pk",
            "annotator_id",
            "status",
            "started_at",
            "note",
            "flagged",
            "seconds_spent",
            *changed,
            "updated_at",
        ]
        values = {n: bindparam(n, type_=cols[n].type) for n in dict.fromkeys(names)}
        _PROGRESS[key] = (
            dialect_insert(s, _ITEM_PROGRESS)
            .values(values)
            .on_conflict_do_update(
                index_elements=["item_pk", "annotator_id"],
                set_={n: values[n] for n in (*changed, "updated_at")},
            )
        )
    return _PROGRESS[key]
