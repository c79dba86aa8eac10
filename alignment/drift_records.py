"""A judge's drift-check anchors and the history of its checks, as stored.

Anchors are chosen once per project and judge (``judge:NAME``, shared by its versions) and
never replaced, so every check re-judges the same items. Each check is one row: the judge
version, model and signature it ran as, its figures, the bar and whether it passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select

from annotation_store.models import DriftAnchor, DriftCheck, Item, utcnow
from annotation_store.store import Store
from annotation_store.store_projects import StoreError


@dataclass(frozen=True)
class CheckRecord:
    """One stored drift check."""

    evaluator: str
    version: str
    model: str | None
    signature_text: str
    field: str
    n_anchors: int
    figures: Mapping[str, Any]
    bar: str
    passed: bool
    created_at: datetime | None = None


def anchors(store: Store, project: str, evaluator: str) -> dict[str, str | None]:
    """The stored anchors of a judge on a project: item_id -> stratum (empty: none yet)."""
    pid = store.project(project).id
    with store.read() as s:
        rows = s.execute(
            select(Item.item_id, DriftAnchor.stratum)
            .join(Item, Item.id == DriftAnchor.item_pk)
            .where(DriftAnchor.project_id == pid, DriftAnchor.evaluator == evaluator)
            .order_by(Item.position)
        ).all()
    return dict(rows)  # type: ignore[arg-type]


def save_anchors(
    store: Store, project: str, evaluator: str, chosen: Mapping[str, str | None], seed: int
) -> None:
    """Store a judge's anchors (item_id -> stratum) once; a second choice is refused."""
    pid = store.project(project).id
    with store.write() as s:
        taken = s.execute(
            select(DriftAnchor.id).where(
                DriftAnchor.project_id == pid, DriftAnchor.evaluator == evaluator
            )
        ).first()
        if taken is not None:
            raise StoreError(f"{evaluator} already has drift anchors on {project!r}")
        pks = dict(
            s.execute(
                select(Item.item_id, Item.id).where(
                    Item.project_id == pid, Item.item_id.in_(list(chosen))
                )
            ).all()
        )
        missing = sorted(set(chosen) - set(pks))
        if missing:
            raise StoreError(f"unknown items: {', '.join(missing[:5])}")
        now = utcnow()
        rows = [
            {
                "project_id": pid,
                "evaluator": evaluator,
                "item_pk": pks[i],
                "stratum": None if stratum is None else str(stratum)[:200],
                "seed": seed,
                "created_at": now,
            }
            for i, stratum in chosen.items()
        ]
        if rows:
            s.execute(insert(DriftAnchor), rows)


def record_check(store: Store, project: str, check: CheckRecord) -> None:
    """Add one check to the project's history."""
    pid = store.project(project).id
    with store.write() as s:
        s.execute(
            insert(DriftCheck),
            [
                {
                    "project_id": pid,
                    "evaluator": check.evaluator,
                    "version": check.version,
                    "model": check.model,
                    "signature_text": check.signature_text,
                    "field": check.field,
                    "n_anchors": check.n_anchors,
                    "figures": dict(check.figures),
                    "bar": check.bar,
                    "passed": check.passed,
                    "created_at": check.created_at or utcnow(),
                }
            ],
        )


def checks(store: Store, project: str) -> list[CheckRecord]:
    """Every drift check of the project, oldest first."""
    pid = store.project(project).id
    with store.read() as s:
        rows = s.scalars(
            select(DriftCheck).where(DriftCheck.project_id == pid).order_by(DriftCheck.id)
        ).all()
        return [
            CheckRecord(
                r.evaluator,
                r.version,
                r.model,
                r.signature_text,
                r.field,
                r.n_anchors,
                dict(r.figures or {}),
                r.bar,
                bool(r.passed),
                r.created_at,
            )
            for r in rows
        ]
