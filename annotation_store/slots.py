"""Who holds a slot on an item, computed in SQL for the claim queue.

An annotator holds a slot on an item when they submitted it (progress ``submitted``) or
hold a claim on it that is ``done``, or ``open`` and not stale. A queue claim is stale
when it is not explicit and neither it nor the annotator's progress on the item was
touched since ``cutoff`` (now minus the project's ``claim_timeout_minutes``).

Claims run one at a time per project (under the project lock), so what each claim reads
is what the next annotator waits for. The database counts the slots and picks the next
item; only that item comes back, instead of every claim and progress row of the project.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Select, Subquery, and_, exists, func, or_, select, union, update
from sqlalchemy.orm import Session, aliased

from annotation_store.models import Assignment, GoldItem, Item, ItemProgress


def holders(project_id: int, cutoff: datetime, item_pk: int | None = None) -> Subquery:
    """(item_pk, annotator_id) pairs holding a slot, once each (optionally one item)."""
    prog = aliased(ItemProgress)
    submitted = select(ItemProgress.item_pk, ItemProgress.annotator_id).where(
        ItemProgress.project_id == project_id, ItemProgress.status == "submitted"
    )
    claims = (
        select(Assignment.item_pk, Assignment.annotator_id)
        .outerjoin(
            prog,
            and_(prog.item_pk == Assignment.item_pk, prog.annotator_id == Assignment.annotator_id),
        )
        .where(
            Assignment.project_id == project_id,
            or_(
                Assignment.status == "done",
                and_(Assignment.status == "open", ~_stale(prog, cutoff)),
            ),
        )
    )
    if item_pk is not None:
        submitted = submitted.where(ItemProgress.item_pk == item_pk)
        claims = claims.where(Assignment.item_pk == item_pk)
    return union(submitted, claims).subquery()


def _stale(prog: Any, cutoff: datetime) -> Any:
    """An open assignment row's staleness (``prog``: the holder's progress, outer-joined)."""
    return and_(
        Assignment.explicit.is_(False),
        Assignment.created_at < cutoff,
        or_(prog.updated_at.is_(None), prog.updated_at < cutoff),
    )


def candidates(project_id: int, who: int, k: int, cutoff: datetime, strategy: str) -> Select[Any]:
    """Items ``who`` may claim (not gold, not theirs yet, fewer than k holders): id,
    item_id, position, holders; ordered and limited to one unless the strategy is
    ``random`` (ordered in Python, see :func:`pick`)."""
    held = holders(project_id, cutoff)
    counts = select(held.c.item_pk, func.count().label("n")).group_by(held.c.item_pk).subquery()
    n = func.coalesce(counts.c.n, 0)
    q = (
        select(Item.id, Item.item_id, Item.position, n.label("n"))
        .outerjoin(counts, counts.c.item_pk == Item.id)
        .where(
            Item.project_id == project_id,
            n < k,
            ~exists().where(GoldItem.item_pk == Item.id),
            ~exists().where(Assignment.item_pk == Item.id, Assignment.annotator_id == who),
            ~exists().where(ItemProgress.item_pk == Item.id, ItemProgress.annotator_id == who),
        )
    )
    if strategy == "least_annotated":
        return q.order_by(n, Item.position, Item.id).limit(1)
    if strategy == "random":
        return q
    return q.order_by(Item.position, Item.id).limit(1)


def pick(rows: list[Row[Any]], strategy: str, seed: int, annotator: str) -> Row[Any] | None:
    """The chosen candidate: the first row, or under ``random`` the smallest digest of
    seed, annotator and item id (a fixed, per-annotator shuffle)."""
    if not rows:
        return None
    if strategy != "random":
        return rows[0]
    return min(
        rows,
        key=lambda r: hashlib.sha256(f"{seed}:{annotator}:{r.item_id}".encode()).hexdigest(),
    )


def release_stale(s: Session, item_pk: int, cutoff: datetime) -> None:
    """Mark the stale queue claims on one item ``released`` (it goes to someone else)."""
    prog = aliased(ItemProgress)
    touched = exists().where(
        prog.item_pk == Assignment.item_pk,
        prog.annotator_id == Assignment.annotator_id,
        prog.updated_at >= cutoff,
    )
    s.execute(
        update(Assignment)
        .where(
            Assignment.item_pk == item_pk,
            Assignment.status == "open",
            Assignment.explicit.is_(False),
            Assignment.created_at < cutoff,
            ~touched,
        )
        .values(status="released")
    )
