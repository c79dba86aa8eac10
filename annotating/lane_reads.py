"""The annotation client's reads in one statement each (issue #39: a crowd at once).

Every request of the Annotate page's fast lane checks who asks and reads the item it
names. Done with the Store's general lookups that was a dozen statements per request
(the annotator twice, the project, the item twice, its state twice, the queue and the
display order); here it is one for the user and the project, and one for the item with
everything the request decides on: its fields, the user's claim on it, their progress
and labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, bindparam, select

from annotation_store import tables
from annotation_store.models import Annotator, Item, Project
from annotation_store.records import AnnotatorInfo, ItemRecord, ProjectInfo
from annotation_store.store import Store
from annotation_store.store_projects import StoreError, project_info


@dataclass(frozen=True)
class Asker:
    """The user a request comes from as the database has them now, and the project."""

    user: AnnotatorInfo | None  # None: no such user
    active: bool
    project: ProjectInfo


def _asker_query() -> Any:
    projects, people = Project.__table__, Annotator.__table__
    return (
        select(
            projects,
            people.c.id.label("who_id"),
            people.c.role.label("who_role"),
            people.c.email.label("who_email"),
            people.c.password_hash.label("who_password"),
            people.c.external.label("who_external"),
            people.c.active.label("who_active"),
        )
        .select_from(projects)
        .outerjoin(people, people.c.name == bindparam("who"))
        .where(projects.c.name == bindparam("project"))
    )


# Built once: building a statement costs more CPU than SQLite takes to run it, and a
# built statement keeps its cache key (SQLAlchemy memoises it), so each run only binds.
_ASKER = _asker_query()


def asker(store: Store, name: str, project: str) -> Asker:
    """The user ``name`` (role, whether they may sign in) and ``project``, in one
    indexed statement; StoreError when the project is gone."""
    with store.read_statement() as conn:
        row = conn.execute(_ASKER, {"who": name, "project": project}).first()
    if row is None:
        raise StoreError(f"no project called {project!r}")
    user = None
    if row.who_id is not None:
        user = AnnotatorInfo(
            row.who_id,
            name,
            row.who_role,
            row.who_email,
            bool(row.who_password),
            bool(row.who_external),
        )
    return Asker(user, bool(row.who_active), project_info(row))


@dataclass(frozen=True)
class LaneItem:
    """One item as a request needs it: the record (not blinded), the annotator's state
    on it (as ``Store.item_state``) and their claim's status (None: no claim)."""

    item: ItemRecord
    state: dict[str, Any]
    claim: str | None


def _item_query() -> Any:
    items = Item.__table__
    return (
        select(
            items.c.id,
            items.c.item_id,
            items.c.position,
            items.c.fields,
            items.c.split,
            items.c.generator,
            tables.assignments.c.status.label("claim"),
            tables.item_progress.c.id.label("progress_id"),
            tables.item_progress.c.status,
            tables.item_progress.c.note,
            tables.item_progress.c.flagged,
            tables.annotations.c.field,
            tables.annotations.c.value,
        )
        .select_from(items)
        .outerjoin(tables.annotators, tables.annotators.c.name == bindparam("who"))
        .outerjoin(
            tables.assignments,
            and_(
                tables.assignments.c.item_pk == items.c.id,
                tables.assignments.c.annotator_id == tables.annotators.c.id,
            ),
        )
        .outerjoin(
            tables.item_progress,
            and_(
                tables.item_progress.c.item_pk == items.c.id,
                tables.item_progress.c.annotator_id == tables.annotators.c.id,
            ),
        )
        .outerjoin(
            tables.annotations,
            and_(
                tables.annotations.c.item_pk == items.c.id,
                tables.annotations.c.annotator_id == tables.annotators.c.id,
            ),
        )
        .where(items.c.project_id == bindparam("pid"), items.c.item_id == bindparam("item"))
        .order_by(tables.annotations.c.id)
    )


_ITEM = _item_query()


def lane_item(store: Store, project: ProjectInfo, item_id: str, annotator: str) -> LaneItem:
    """The item ``item_id`` with ``annotator``'s claim, progress and labels, in one
    indexed statement; StoreError when there is no such item."""
    with store.read_statement() as conn:
        rows = conn.execute(_ITEM, {"who": annotator, "pid": project.id, "item": item_id}).all()
    if not rows:
        raise StoreError(f"no item {item_id!r} in this project")
    first = rows[0]
    record = ItemRecord(first[0], first[1], first[2], dict(first[3] or {}), first[4], first[5])
    has_progress = first.progress_id is not None
    state = {
        "labels": {r.field: r.value for r in rows if r.field is not None},
        "status": first.status,
        "note": first.note if has_progress else "",
        "flagged": bool(first.flagged) if has_progress else False,
    }
    return LaneItem(record, state, first.claim)
