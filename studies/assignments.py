"""Who labels what: claim-next with overlap k, explicit assignment, release and submit.

The guarantee: an item never gets more than k submitted labels through the queue. A
claim counts as *active* while it is ``open`` (and not stale) or ``done``; an annotator
who submitted an item counts once whether or not they hold an assignment row. A claim
is granted only while ``active < k``, and a submit is refused when the annotator's own
claim has lapsed and the other annotators already fill the k slots.

Every decision about an item happens inside one short write transaction holding that
item's row lock (``SELECT ... FOR NO KEY UPDATE``, which leaves label saves unblocked;
a claim passes over items another claim holds, ``SKIP LOCKED``; SQLite write sessions
are serialised already, ``BEGIN IMMEDIATE``). A claim never reads the whole project: it
reads the annotator's own claims and progress, then walks the index of items not marked
``queue_full`` in order, checking each one's claims (a handful of rows). ``queue_full``
is only a hint, set when a check finds an item full (or gold) and cleared when a slot may
have freed (a release, a skip, a stale claim, a settings change); the check under the
lock decides.

Stale claims: a queue claim with no activity (no save on the item) for
``claim_timeout_minutes`` (project setting, default 60) no longer blocks others. When the
item is handed to someone else, the stale claim is marked ``released``; its drafts stay.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pandas as pd
from sqlalchemy import (
    DateTime,
    Row,
    and_,
    bindparam,
    cast,
    exists,
    false,
    func,
    insert,
    literal_column,
    null,
    select,
    true,
    union_all,
    update,
)
from sqlalchemy.orm import Session

from annotation_store import tables
from annotation_store.label_writes import LabelTarget, find_target
from annotation_store.models import (
    Assignment,
    Project,
    utcnow,
)
from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from studies import gold
from studies.flow_settings import study_of
from studies.selection import selected_pks

#: ``active``: only the items of the recorded active-selection sample
#: (:mod:`studies.selection`), in a seeded random order, so stopping early leaves
#: a random part of the sample; without a sample, every item in that order.
STRATEGIES = ("in_order", "random", "least_annotated", "active")
SHOW_EVALUATORS = ("never", "after_submit", "always")
DEFAULTS: dict[str, Any] = {
    "assignment": "in_order",
    "seed": 0,
    "quota": None,
    "show_evaluators": "after_submit",
    "claim_timeout_minutes": 60,
    "annotators_run_evaluators": False,
    # Item fields (or "item_id" / "generator") annotators may see beyond the kind's own
    # fields; by default they see nothing that could name a condition or a system.
    "annotators_see": [],
}


class AssignmentError(StoreError):
    """A claim or submit the assignment rules refuse; the message says why."""


@dataclass(frozen=True)
class AnnotationSettings:
    """The per-project annotation options kept in ``Project.settings``."""

    k: int
    assignment: str
    seed: int
    quota: int | None
    show_evaluators: str
    claim_timeout_minutes: int
    annotators_run_evaluators: bool = False  # runs are for reviewers and admins otherwise


def annotation_settings(settings: Mapping[str, Any]) -> AnnotationSettings:
    """Read annotation options from project settings, filling defaults."""
    merged = {**DEFAULTS, **{k: v for k, v in settings.items() if v is not None}}
    strategy = merged["assignment"] if merged["assignment"] in STRATEGIES else "in_order"
    # A study's workers never see evaluator outputs: they could change a label after
    # seeing the metric the study audits.
    show = "never" if study_of(settings).active else merged["show_evaluators"]
    quota = merged.get("quota")
    return AnnotationSettings(
        k=int(merged.get("k", 3)),
        assignment=strategy,
        seed=int(merged["seed"]),
        quota=int(quota) if quota not in (None, "", 0) else None,
        show_evaluators=show if show in SHOW_EVALUATORS else "after_submit",
        claim_timeout_minutes=int(merged["claim_timeout_minutes"]),
        annotators_run_evaluators=merged["annotators_run_evaluators"] is True,
    )


def validate_annotation_settings(updates: Mapping[str, Any]) -> dict[str, Any]:
    """Check annotation options an admin enters; returns them cleaned."""
    out = dict(updates)
    if "assignment" in out and out["assignment"] not in STRATEGIES:
        raise AssignmentError(f"assignment must be one of {STRATEGIES}")
    if "annotators_run_evaluators" in out and not isinstance(
        out["annotators_run_evaluators"], bool
    ):
        raise AssignmentError("annotators_run_evaluators must be true or false")
    if "show_evaluators" in out and out["show_evaluators"] not in SHOW_EVALUATORS:
        raise AssignmentError(f"show_evaluators must be one of {SHOW_EVALUATORS}")
    for key in ("seed", "claim_timeout_minutes", "k"):
        if key in out and (not isinstance(out[key], int) or out[key] < 0):
            raise AssignmentError(f"{key} must be a whole number >= 0")
    if "annotators_see" in out and (
        not isinstance(out["annotators_see"], list)
        or not all(isinstance(v, str) and v for v in out["annotators_see"])
    ):
        raise AssignmentError("annotators_see must be a list of item field names")
    if out.get("quota") in (0, ""):
        out["quota"] = None
    return out


# -- looking up and counting -----------------------------------------------------------
# The claim's and submit's statements are built once with bound parameters: building one
# took several times the CPU of running it on SQLite, and a built statement keeps its
# cache key, so each run only binds (issue #39: the fast lane's CPU per item). They name
# the Core tables, not the ORM classes: a statement on a class runs through the ORM's
# execution layer, about 0.1 ms more CPU per statement (inside SQLite's write lock).
_IDS = (
    select(tables.projects.c.id, tables.projects.c.settings, tables.annotators.c.id)
    .select_from(tables.projects)
    .outerjoin(tables.annotators, tables.annotators.c.name == bindparam("who"))
    .where(tables.projects.c.name == bindparam("project"))
)


def _ids(s: Session, project: str, annotator: str) -> tuple[int, dict[str, Any], int]:
    """(project id, settings, annotator id) in one statement, taking no lock."""
    row = s.execute(_IDS, {"project": project, "who": annotator}).first()
    if row is None:
        raise StoreError(f"no project called {project!r}")
    if row[2] is None:
        raise StoreError(f"no annotator called {annotator!r}")
    return row[0], row[1] or {}, row[2]


_LOCK_ITEM = {
    skip: select(tables.items.c.id)
    .where(tables.items.c.id == bindparam("item_pk"))
    .with_for_update(of=tables.items, key_share=True, skip_locked=skip)
    for skip in (False, True)
}


def _lock_item(s: Session, item_pk: int, *, skip_locked: bool = False) -> bool:
    """Lock one item's row (``FOR NO KEY UPDATE``: label saves, which only reference the
    item, go on); with ``skip_locked`` False when another claim holds it. SQLite write
    sessions are serialised already (``BEGIN IMMEDIATE``)."""
    return s.execute(_LOCK_ITEM[skip_locked], {"item_pk": item_pk}).first() is not None


_PROGRESS_COLUMNS = (
    tables.item_progress.c.item_pk,
    tables.item_progress.c.annotator_id,
    tables.item_progress.c.status,
    tables.item_progress.c.updated_at,
)
_CLAIM_COLUMNS = (
    tables.assignments.c.id,
    tables.assignments.c.item_pk,
    tables.assignments.c.annotator_id,
    tables.assignments.c.status,
    tables.assignments.c.explicit,
    tables.assignments.c.created_at,
)


def _item_holders() -> Any:
    """One item's claims (kind "c") and progress rows (kind "p") in one statement."""
    item_pk = bindparam("item_pk")
    return union_all(
        select(literal_column("'c'").label("kind"), *_CLAIM_COLUMNS).where(
            tables.assignments.c.item_pk == item_pk
        ),
        select(
            literal_column("'p'"),
            null(),
            tables.item_progress.c.item_pk,
            tables.item_progress.c.annotator_id,
            tables.item_progress.c.status,
            null(),
            tables.item_progress.c.updated_at,
        ).where(tables.item_progress.c.item_pk == item_pk),
    )


_ITEM_HOLDERS = _item_holders()


@dataclass(frozen=True)
class _Claims:
    """Claims and progress as plain rows: one item's, read under its row lock (the
    least-annotated order reads a project's)."""

    progress: dict[tuple[int, int], tuple[str, datetime | None]]  # (item, who) -> status, at
    assignments: list[Row[Any]]  # every status: id, item_pk, annotator_id, status, ...

    @classmethod
    def of_item(cls, s: Session, item_pk: int) -> _Claims:
        """One item's claims and progress rows (one indexed statement)."""
        progress: dict[tuple[int, int], tuple[str, datetime | None]] = {}
        claims: list[Any] = []
        for row in s.execute(_ITEM_HOLDERS, {"item_pk": item_pk}):
            if row[0] == "c":
                claims.append(tuple(row[1:]))
            else:
                progress[(row[2], row[3])] = (row[4], row[6])
        return cls(progress, claims)

    @classmethod
    def read(cls, s: Session, claims_where: Any, progress_where: Any) -> _Claims:
        """The claims and progress rows the two conditions select."""
        progress = {
            (item_pk, who): (status, updated_at)
            for item_pk, who, status, updated_at in s.execute(
                select(
                    tables.item_progress.c.item_pk,
                    tables.item_progress.c.annotator_id,
                    tables.item_progress.c.status,
                    tables.item_progress.c.updated_at,
                ).where(progress_where)
            )
        }
        rows = s.execute(select(*_CLAIM_COLUMNS).where(claims_where)).all()
        return cls(progress, rows)

    def active_by_item(
        self, cfg: AnnotationSettings, now: datetime
    ) -> tuple[dict[int, set[int]], list[tuple[int, int]]]:
        """Per item: the annotators holding a slot. Also returns stale open claims as
        (assignment id, item pk)."""
        cutoff = now - timedelta(minutes=cfg.claim_timeout_minutes)
        active: dict[int, set[int]] = {}
        stale: list[tuple[int, int]] = []
        for (item_pk, who), (status, _) in self.progress.items():
            if status == "submitted":
                active.setdefault(item_pk, set()).add(who)
        for claim_id, item_pk, who, status, explicit, created_at in self.assignments:
            if status not in ("open", "done"):
                continue
            if status == "open" and not explicit:
                prog = self.progress.get((item_pk, who))
                last = max(created_at, prog[1] if prog and prog[1] else created_at)
                if last < cutoff:
                    stale.append((claim_id, item_pk))
                    continue
            active.setdefault(item_pk, set()).add(who)
        return active, stale


def _set_claim_status(s: Session, claim_ids: list[int], status: str) -> None:
    s.execute(
        update(tables.assignments)
        .where(tables.assignments.c.id.in_(claim_ids))
        .values(status=status)
    )


def _mark_full(s: Session, item_pk: int, full: bool = True) -> None:
    s.execute(update(tables.items).where(tables.items.c.id == item_pk).values(queue_full=full))


def _reopen(store: Store, item_pks: Iterable[int]) -> None:
    """Clear the queue's full mark of items whose slot may have freed, in a transaction of
    its own after the one that freed it: it waits only for a claim checking the item right
    now, and holds no other lock meanwhile (no deadlock), and that claim's check came
    before the slot freed, so the mark it may have set is cleared after it."""
    pks = sorted(set(item_pks))
    if not pks:
        return
    with store.write() as s:
        s.execute(
            update(tables.items)
            .where(tables.items.c.id.in_(pks), tables.items.c.queue_full == true())
            .values(queue_full=False)
        )


_STALE = (
    select(
        literal_column("'s'"),
        null(),
        tables.assignments.c.item_pk,
        null(),
        null(),
        tables.assignments.c.created_at,
        null(),
        tables.item_progress.c.updated_at,
    )
    .join(tables.items, tables.items.c.id == tables.assignments.c.item_pk)
    .outerjoin(
        tables.item_progress,
        and_(
            tables.item_progress.c.item_pk == tables.assignments.c.item_pk,
            tables.item_progress.c.annotator_id == tables.assignments.c.annotator_id,
        ),
    )
    .where(
        tables.assignments.c.project_id == bindparam("pid"),
        tables.assignments.c.status == "open",
        tables.assignments.c.created_at < bindparam("cutoff"),
        tables.assignments.c.explicit == false(),
        tables.items.c.queue_full == true(),
    )
)


def _reopen_stale(s: Session, rows: list[Any], cutoff: datetime) -> None:
    """Clear the full mark of items holding a stale queue claim (``rows``: the project's
    open claims older than the timeout on full items, item_pk, created_at, last save; at
    most one or two per annotator). Items another claim is checking right now are passed
    over (``SKIP LOCKED``): that check sees the stale claim itself, and this one waits
    for no lock."""
    for pk in sorted({pk for pk, created, seen in rows if max(created, seen or created) < cutoff}):
        if _lock_item(s, pk, skip_locked=True):
            _mark_full(s, pk, False)


def _order_key(
    cfg: AnnotationSettings, annotator: str, counts: Mapping[int, int]
) -> Callable[[Any], tuple[Any, ...]]:
    def key(item: Any) -> tuple[Any, ...]:  # a row with id, item_id, position
        if cfg.assignment in ("random", "active"):
            digest = hashlib.sha256(f"{cfg.seed}:{annotator}:{item.item_id}".encode()).hexdigest()
            return (digest,)
        if cfg.assignment == "least_annotated":
            return (counts.get(item.id, 0), item.position)
        return (item.position,)

    return key


_INSERT_CLAIM = insert(tables.assignments)


def _queue_claim(s: Session, project_id: int, item_pk: int, who: int, now: datetime) -> None:
    """A new open claim made by the queue (not an admin's explicit assignment)."""
    s.execute(
        _INSERT_CLAIM,
        dict(
            project_id=project_id,
            item_pk=item_pk,
            annotator_id=who,
            explicit=False,
            status="open",
            created_at=now,
        ),
    )


def _open_items() -> Any:
    """Items of the project ``pid`` not marked full that ``who`` never held nor labelled,
    in queue order (the index ``ix_items_project_queue``), with their gold mark."""
    pid, who = bindparam("pid"), bindparam("who")
    return (
        select(
            tables.items.c.id,
            tables.items.c.item_id,
            tables.items.c.position,
            tables.gold_items.c.item_pk,
        )
        .outerjoin(tables.gold_items, tables.gold_items.c.item_pk == tables.items.c.id)
        .where(
            tables.items.c.project_id == pid,
            tables.items.c.queue_full == false(),
            ~exists().where(
                tables.assignments.c.item_pk == tables.items.c.id,
                tables.assignments.c.annotator_id == who,
            ),
            ~exists().where(
                tables.item_progress.c.item_pk == tables.items.c.id,
                tables.item_progress.c.annotator_id == who,
            ),
        )
        .order_by(tables.items.c.position, tables.items.c.id)
    )


_OPEN_ITEMS = _open_items()
_NEXT_OPEN = _OPEN_ITEMS.limit(1).with_for_update(of=tables.items, key_share=True, skip_locked=True)


def _try_claim(
    s: Session, pid: int, item_pk: int, who: int, cfg: AnnotationSettings, now: datetime
) -> bool:
    """Claim one locked item when it has a free slot; else mark it full. Stale claims
    on it are released when it is handed out."""
    active, stale = _Claims.of_item(s, item_pk).active_by_item(cfg, now)
    holders = len(active.get(item_pk, ()))
    if holders >= cfg.k:
        _mark_full(s, item_pk)
        return False
    if stale:
        _set_claim_status(s, [claim_id for claim_id, _ in stale], "released")
    _queue_claim(s, pid, item_pk, who, now)
    if holders + 1 >= cfg.k:
        _mark_full(s, item_pk)
    return True


def _claim_in_order(
    s: Session, pid: int, who: int, cfg: AnnotationSettings, now: datetime
) -> str | None:
    """The first item in position order with a free slot: one indexed row at a time,
    locked with ``SKIP LOCKED`` (another claim checking it makes this one take the
    next); gold and full items met on the way are marked so no claim meets them again."""
    while True:
        row = s.execute(_NEXT_OPEN, {"pid": pid, "who": who}).first()
        if row is None:
            return None
        if row[3] is not None:  # gold: never on the ordinary path
            _mark_full(s, row.id)
            continue
        if _try_claim(s, pid, row.id, who, cfg, now):
            return row.item_id


def _claim_by_key(
    s: Session, pid: int, who: int, annotator: str, cfg: AnnotationSettings, now: datetime
) -> str | None:
    """The random, active and least-annotated orders: the open items' ids (no project
    lock) sorted by the strategy's key, then the first whose lock and slot check pass."""
    rows = [r for r in s.execute(_OPEN_ITEMS, {"pid": pid, "who": who}).all() if r[3] is None]
    if cfg.assignment == "active":
        drawn = selected_pks(s, pid)
        if drawn is not None:
            rows = [r for r in rows if r.id in drawn]
    counts: dict[int, int] = {}
    if cfg.assignment == "least_annotated":  # reads the project's claims (not the default)
        claims = _Claims.read(
            s, tables.assignments.c.project_id == pid, tables.item_progress.c.project_id == pid
        )
        counts = {pk: len(who_) for pk, who_ in claims.active_by_item(cfg, now)[0].items()}
    for row in sorted(rows, key=_order_key(cfg, annotator, counts)):
        if _lock_item(s, row.id, skip_locked=True) and _try_claim(s, pid, row.id, who, cfg, now):
            return row.item_id
    return None


# -- public API -------------------------------------------------------------------------
def claim_next(
    store: Store,
    project: str,
    annotator: str,
    now: datetime | None = None,
    ahead_of: Iterable[str] = (),
    *,
    known: tuple[int, Mapping[str, Any], int] | None = None,
) -> str | None:
    """Hand ``annotator`` their next item (resuming an open one first), or None.

    None means: the quota is reached, or every item they have not done already has k
    active annotators. ``ahead_of``: claim as if those items were already submitted (the
    Annotate page's browser fetches the next item while the current one is labelled and
    the ones before it are still being saved). ``known``: the project's id and settings
    and the annotator's id as the caller just read them (else they are read here).

    No project lock and no read of the whole project: the annotator's own claims and
    progress, then the queue's index (items not marked full), one locked item at a time.
    """
    now = now or utcnow()
    freed: set[int] = set()
    try:
        with store.write() as s:
            return _claim(s, project, annotator, now, ahead_of, freed, known)
    finally:
        _reopen(store, freed)


def _own_rows() -> Any:
    """In one statement: the annotator's claims ("c": id, item_pk, status, explicit,
    created_at, item_id), their progress rows ("p": item_pk, status, item_id) and the
    project's stale claim candidates ("s", see ``_STALE``)."""
    pid, who = bindparam("pid"), bindparam("who")
    claims = (
        select(
            literal_column("'c'").label("kind"),
            tables.assignments.c.id,
            tables.assignments.c.item_pk,
            tables.assignments.c.status,
            tables.assignments.c.explicit,
            tables.assignments.c.created_at,
            tables.items.c.item_id,
            cast(null(), DateTime).label("seen"),  # PostgreSQL types a union pairwise
        )
        .join(tables.items, tables.items.c.id == tables.assignments.c.item_pk)
        .where(tables.assignments.c.annotator_id == who, tables.assignments.c.project_id == pid)
    )
    progress = (
        select(
            literal_column("'p'"),
            null(),
            tables.item_progress.c.item_pk,
            tables.item_progress.c.status,
            null(),
            null(),
            tables.items.c.item_id,
            cast(null(), DateTime),
        )
        .join(tables.items, tables.items.c.id == tables.item_progress.c.item_pk)
        .where(tables.item_progress.c.annotator_id == who, tables.item_progress.c.project_id == pid)
    )
    return union_all(claims, progress, _STALE)


_OWN = _own_rows()
_AHEAD = select(tables.items.c.item_id, tables.items.c.id).where(
    tables.items.c.project_id == bindparam("pid"),
    tables.items.c.item_id.in_(bindparam("ids", expanding=True)),
)


def _claim(
    s: Session,
    project: str,
    annotator: str,
    now: datetime,
    ahead_of: Iterable[str],
    freed: set[int],
    known: tuple[int, Mapping[str, Any], int] | None = None,
) -> str | None:
    """:func:`claim_next` inside its write session; items whose slot freed go to ``freed``.
    Reads the annotator's claims and progress and the stale claims in one statement."""
    pid, settings, who = known if known is not None else _ids(s, project, annotator)
    cfg = annotation_settings(settings)
    cutoff = now - timedelta(minutes=cfg.claim_timeout_minutes)
    mine: dict[int, Any] = {}
    done_here: dict[int, str] = {}
    pk_of: dict[str, int] = {}
    stale_rows = []
    for row in s.execute(_OWN, {"pid": pid, "who": who, "cutoff": cutoff}):
        if row.kind == "c":
            mine[row.item_pk] = row
            pk_of[row.item_id] = row.item_pk
        elif row.kind == "p":
            done_here[row.item_pk] = row.status
            pk_of[row.item_id] = row.item_pk
        else:
            stale_rows.append((row.item_pk, row.created_at, row.seen))
    pretend: set[int] = set()  # ``ahead_of`` items counted as submitted though not yet
    if ahead_of:
        ahead_of = [ahead_of] if isinstance(ahead_of, str) else list(ahead_of)
        unknown = [i for i in ahead_of if i not in pk_of]
        if unknown:  # items the annotator never held (a reviewer's): looked up
            pk_of.update(s.execute(_AHEAD, {"pid": pid, "ids": unknown}).all())
        for pk in dict.fromkeys(pk_of[i] for i in ahead_of if i in pk_of):
            if done_here.get(pk) not in ("submitted", "skipped"):
                done_here[pk] = "submitted"
                pretend.add(pk)
    # 1. resume: an open claim (explicit ones first) not yet submitted or skipped
    for a in sorted(mine.values(), key=lambda a: (not a.explicit, a.created_at, a.id)):
        if a.status != "open":
            continue
        if done_here.get(a.item_pk) in ("submitted", "skipped"):
            if a.item_pk in pretend:
                continue  # not submitted yet: its claim stays open
            status = "done" if done_here[a.item_pk] == "submitted" else "released"
            _set_claim_status(s, [a.id], status)
            if status == "released":
                freed.add(a.item_pk)
            continue
        return a.item_id
    # 2. quota
    submitted = sum(1 for st in done_here.values() if st == "submitted")
    if cfg.quota is not None and submitted >= cfg.quota:
        return None
    # 2b. a gold check at the study's rate (gold items never take the ordinary path)
    if study_of(settings).gold_rate > 0:
        golds = set(
            s.scalars(
                select(tables.gold_items.c.item_pk).where(tables.gold_items.c.project_id == pid)
            )
        )
        gold_pk = gold.pick_gold(settings, annotator, mine, golds)
        if gold_pk is not None:
            _queue_claim(s, pid, gold_pk, who, now)
            return s.scalar(select(tables.items.c.item_id).where(tables.items.c.id == gold_pk))
    # 3. the next eligible item under the strategy
    _reopen_stale(s, stale_rows, cutoff)
    if cfg.assignment == "in_order":
        return _claim_in_order(s, pid, who, cfg, now)
    return _claim_by_key(s, pid, who, annotator, cfg, now)


def assign(store: Store, project: str, item_ids: list[str], annotator: str) -> int:
    """Admin: assign items explicitly (they come first in the annotator's queue).

    Explicit assignments may exceed k on purpose (e.g. a calibration item for everyone).
    Returns how many assignments were created or reopened.
    """
    with store.write() as s:
        pid, _, who = _ids(s, project, annotator)
        pks = dict(
            s.execute(
                select(tables.items.c.item_id, tables.items.c.id).where(
                    tables.items.c.project_id == pid, tables.items.c.item_id.in_(item_ids)
                )
            ).all()
        )
        missing = sorted(set(item_ids) - set(pks))
        if missing:
            raise StoreError(f"unknown items: {', '.join(missing[:5])}")
        existing = {
            a.item_pk: a
            for a in s.scalars(
                select(Assignment).where(
                    tables.assignments.c.annotator_id == who,
                    tables.assignments.c.item_pk.in_(list(pks.values())),
                )
            )
        }
        changed = 0
        for item_id in item_ids:
            row = existing.get(pks[item_id])
            if row is None:
                s.add(
                    Assignment(
                        project_id=pid,
                        item_pk=pks[item_id],
                        annotator_id=who,
                        explicit=True,
                        status="open",
                        created_at=utcnow(),
                    )
                )
                changed += 1
            elif not row.explicit or row.status == "released":
                row.explicit, row.status = True, "open" if row.status == "released" else row.status
                changed += 1
        return changed


def unassign(store: Store, project: str, item_id: str, annotator: str) -> bool:
    """Admin: withdraw an open assignment (labels already given stay). True if removed."""
    with store.write() as s:
        pid, _, who = _ids(s, project, annotator)
        item_pk = s.scalar(
            select(tables.items.c.id).where(
                tables.items.c.project_id == pid, tables.items.c.item_id == item_id
            )
        )
        row = s.scalar(
            select(Assignment).where(
                tables.assignments.c.item_pk == item_pk, tables.assignments.c.annotator_id == who
            )
        )
        if row is None or row.status != "open":
            return False
        row.status = "released"
    _reopen(store, [row.item_pk])
    return True


def release(store: Store, project: str, item_id: str, annotator: str) -> None:
    """Give an item back (skip): the slot frees up for someone else."""
    unassign(store, project, item_id, annotator)


def reserve_submit(
    store: Store, project: str, item_id: str, annotator: str, bypass: bool = False
) -> None:
    """Check that ``annotator`` may submit ``item_id`` and hold the slot (mark it done).

    Raises :class:`AssignmentError` when their claim lapsed and k others now hold the
    item. ``bypass`` (reviewers and admins) skips the k check but still records the slot.
    """
    with store.write() as s:
        _reserve(s, _locked_target(s, project, item_id, annotator), bypass)


def _locked_target(
    s: Session, project: str, item_id: str, annotator: str, known: LabelTarget | None = None
) -> LabelTarget:
    """The label target (``known``, else read) with its item's row locked (claims of
    that item wait)."""
    t = known or find_target(s, project, item_id, annotator)
    if t.annotator_id is None:
        raise StoreError(f"no annotator called {annotator!r}")
    _lock_item(s, t.item_pk)
    return t


_OWN_CLAIM = select(
    tables.assignments.c.id, tables.assignments.c.status, tables.assignments.c.explicit
).where(
    tables.assignments.c.item_pk == bindparam("item_pk"),
    tables.assignments.c.annotator_id == bindparam("who"),
)


def _reserve(s: Session, t: LabelTarget, bypass: bool) -> None:
    """:func:`reserve_submit` inside a write session that locked the item's row."""
    who = t.annotator_id
    assert who is not None
    row = s.execute(_OWN_CLAIM, {"item_pk": t.item_pk, "who": who}).first()
    holds = row is not None and (row.status in ("done", "open") or row.explicit)
    if not holds and not bypass:
        cfg = annotation_settings(t.settings or {})
        active, _ = _Claims.of_item(s, t.item_pk).active_by_item(cfg, utcnow())
        others = active.get(t.item_pk, set()) - {who}
        if len(others) >= cfg.k:
            raise AssignmentError(
                f"this item already has its {cfg.k} annotators; your claim lapsed "
                "after a long pause. Your drafts are kept; take the next item."
            )
    if row is None:
        s.execute(
            insert(tables.assignments).values(
                project_id=t.project_id,
                item_pk=t.item_pk,
                annotator_id=who,
                explicit=False,
                status="done",
                created_at=utcnow(),
            )
        )
    elif row.status != "done":
        _set_claim_status(s, [row.id], "done")


def submit(
    store: Store,
    project: str,
    item_id: str,
    annotator: str,
    seconds: float | None = None,
    bypass: bool = False,
    *,
    target: LabelTarget | None = None,
) -> int:
    """Reserve the slot and mark the annotator's labels on the item submitted, in one
    transaction (a refused submit changes nothing); returns how many labels. ``target``:
    the project, item and annotator as the caller just read them, else read here."""
    with store.write() as s:
        t = _locked_target(s, project, item_id, annotator, target)
        _reserve(s, t, bypass)
        return store.set_item_status(s, t, annotator, "submitted", seconds)


def own_counts(store: Store, project: str, annotator: str) -> dict[str, int]:
    """How many of the project's items the annotator has per status (submitted, skipped,
    draft); gold items included."""
    with store.read() as s:
        rows = s.execute(
            select(tables.item_progress.c.status, func.count())
            .join(tables.projects, tables.projects.c.id == tables.item_progress.c.project_id)
            .join(tables.annotators, tables.annotators.c.id == tables.item_progress.c.annotator_id)
            .where(tables.projects.c.name == project, tables.annotators.c.name == annotator)
            .group_by(tables.item_progress.c.status)
        ).all()
    return {status: int(n) for status, n in rows}


def skips_left(store: Store, project: str, annotator: str) -> int | None:
    """How many more items the project's study lets the annotator skip (None: no cap)."""
    cap = study_of(store.project(project).settings).max_skips
    if cap is None:
        return None
    return max(0, cap - own_counts(store, project, annotator).get("skipped", 0))


def skip(store: Store, project: str, item_id: str, annotator: str) -> None:
    """Skip an item: labels kept as skipped, the claim released for someone else.

    Refused (nothing changes) when the study's ``max_skips`` is used up."""
    if skips_left(store, project, annotator) == 0:
        cap = study_of(store.project(project).settings).max_skips
        raise AssignmentError(
            "This study does not allow skipping."
            if cap == 0
            else f"This study allows at most {cap} skipped items."
        )
    store.skip_item(project, item_id, annotator)
    release(store, project, item_id, annotator)


_QUEUE = (
    select(
        tables.items.c.item_id,
        tables.projects.c.id,
        tables.annotators.c.id,
        tables.assignments.c.status,
    )
    .select_from(tables.projects)
    .outerjoin(tables.annotators, tables.annotators.c.name == bindparam("who"))
    .outerjoin(
        tables.assignments,
        and_(
            tables.assignments.c.project_id == tables.projects.c.id,
            tables.assignments.c.annotator_id == tables.annotators.c.id,
        ),
    )
    .outerjoin(tables.items, tables.items.c.id == tables.assignments.c.item_pk)
    .where(tables.projects.c.name == bindparam("project"))
    .order_by(tables.assignments.c.created_at, tables.assignments.c.id)
)
_DISPLAY_ORDER = (
    select(tables.items.c.item_id)
    .join(tables.assignments, tables.items.c.id == tables.assignments.c.item_pk)
    .join(tables.projects, tables.projects.c.id == tables.assignments.c.project_id)
    .join(tables.annotators, tables.annotators.c.id == tables.assignments.c.annotator_id)
    .where(
        tables.projects.c.name == bindparam("project"), tables.annotators.c.name == bindparam("who")
    )
    .order_by(tables.assignments.c.created_at, tables.assignments.c.id)
)


def queue(store: Store, project: str, annotator: str) -> list[str]:
    """The items an annotator may open, in the order they got them (open and done)."""
    with store.read_statement() as conn:
        rows = conn.execute(_QUEUE, {"project": project, "who": annotator}).all()
    if not rows:  # one statement: the project (and annotator) come with the claims
        raise StoreError(f"no project called {project!r}")
    return [r[0] for r in rows if r[3] in ("open", "done")]


def display_order(store: Store, project: str, annotator: str) -> list[str]:
    """Every item ever handed to an annotator, in the order they got it (any status).

    Position + 1 is the item's neutral display number for that annotator: it stays the
    same when an item is skipped or released, and tells nothing about the item.
    """
    with store.read_statement() as conn:
        rows = conn.execute(_DISPLAY_ORDER, {"project": project, "who": annotator}).all()
    return list(dict.fromkeys(r[0] for r in rows))


def may_open(store: Store, project: str, item_id: str, annotator: str, role: str) -> bool:
    """Annotators open only items assigned to them; reviewers and admins open any."""
    if role in ("admin", "reviewer"):
        return True
    return item_id in queue(store, project, annotator)


def assignments_frame(store: Store, project: str) -> list[dict[str, Any]]:
    """Every assignment of a project as plain rows (for the admin page)."""
    with store.read() as s:
        proj = s.scalar(select(Project).where(tables.projects.c.name == project))
        if proj is None:
            raise StoreError(f"no project called {project!r}")
        rows = s.execute(
            select(
                tables.items.c.item_id,
                tables.annotators.c.name,
                tables.assignments.c.status,
                tables.assignments.c.explicit,
                tables.assignments.c.created_at,
            )
            .join(tables.items, tables.items.c.id == tables.assignments.c.item_pk)
            .join(tables.annotators, tables.annotators.c.id == tables.assignments.c.annotator_id)
            .where(tables.assignments.c.project_id == proj.id)
            .order_by(tables.items.c.position, tables.annotators.c.name)
        ).all()
        return [
            dict(item_id=r[0], annotator=r[1], status=r[2], explicit=r[3], created_at=r[4])
            for r in rows
        ]


# -- progress ---------------------------------------------------------------------------
def annotator_progress(store: Store, project: str) -> pd.DataFrame:
    """Per annotator: submitted, drafts, skipped, flagged, median seconds per item."""
    frame = store.progress_frame(project)
    cols = ["annotator", "submitted", "drafts", "skipped", "flagged", "median_seconds"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for name, g in frame.groupby("annotator", sort=True):
        timed = g[(g["status"] == "submitted") & (g["seconds_spent"] > 0)]["seconds_spent"]
        rows.append(
            {
                "annotator": name,
                "submitted": int((g["status"] == "submitted").sum()),
                "drafts": int((g["status"] == "draft").sum()),
                "skipped": int((g["status"] == "skipped").sum()),
                "flagged": int(g["flagged"].astype(bool).sum()),
                "median_seconds": float(timed.median()) if len(timed) else None,
            }
        )
    return pd.DataFrame(rows, columns=cols)


def project_progress(store: Store, project: str) -> dict[str, Any]:
    """One project's totals: items, k, items complete and still short of k, and more.

    Gold items are checks, not items to complete (they are not bound by k): items,
    complete, short of k and labels still needed leave them out; the work counts
    (submitted, drafts, skipped, flagged) include them."""
    info = store.project(project)
    k = annotation_settings(info.settings).k
    frame = store.progress_frame(project)
    golds = set(gold.gold_items(store, project))
    ordinary = [i for i in store.item_ids(project) if i not in golds]
    n_items = len(ordinary)
    done = frame[frame["status"] == "submitted"]
    per_item = done[~done["item_id"].isin(golds)].groupby("item_id")["annotator"].nunique()
    complete = int((per_item >= k).sum())
    timed = done[done["seconds_spent"] > 0]["seconds_spent"]
    return {
        "project": project,
        "kind": info.kind,
        "k": k,
        "items": n_items,
        "complete": complete,
        "short_of_k": n_items - complete,
        "missing_labels": int(sum(max(0, k - int(per_item.get(i, 0))) for i in ordinary)),
        "submitted": int(len(done)),
        "drafts": int((frame["status"] == "draft").sum()),
        "skipped": int((frame["status"] == "skipped").sum()),
        "flagged": int(frame["flagged"].astype(bool).sum()) if len(frame) else 0,
        "median_seconds": float(timed.median()) if len(timed) else None,
    }
