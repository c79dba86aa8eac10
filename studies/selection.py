"""The recorded active-selection sample of a project: per item, probability and draw.

Written in one transaction (a new draw replaces the old one); read by the ``active``
assignment strategy (which hands out drawn items only) and by the estimates (which weight
labels by the inverse probability).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from annotation_store.models import Item, SelectionDraw, utcnow
from annotation_store.store import Store
from annotation_store.store_projects import StoreError


def record_draws(
    store: Store, project: str, draws: Mapping[str, tuple[float, bool]], basis: str
) -> int:
    """Replace the project's sample: item_id -> (probability, selected). Returns how many
    items were drawn. Unknown items or probabilities outside (0, 1] change nothing."""
    bad = [i for i, (p, _) in draws.items() if not 0 < p <= 1]
    if bad:
        raise StoreError(f"selection probabilities must be in (0, 1] (item {bad[0]!r})")
    pid = store.project(project).id
    with store.write() as s:
        pks = dict(s.execute(select(Item.item_id, Item.id).where(Item.project_id == pid)).all())
        missing = sorted(set(draws) - set(pks))
        if missing:
            raise StoreError(f"unknown items: {', '.join(missing[:5])}")
        s.execute(delete(SelectionDraw).where(SelectionDraw.project_id == pid))
        now = utcnow()
        rows = [
            {
                "project_id": pid,
                "item_pk": pks[item_id],
                "probability": float(p),
                "selected": bool(chosen),
                "basis": basis[:500],
                "created_at": now,
            }
            for item_id, (p, chosen) in draws.items()
        ]
        if rows:
            s.execute(insert(SelectionDraw), rows)
    return sum(1 for _, chosen in draws.values() if chosen)


def draws_frame(store: Store, project: str) -> pd.DataFrame:
    """item_id, probability, selected of the project's sample (empty without one)."""
    pid = store.project(project).id
    with store.read() as s:
        rows = s.execute(
            select(Item.item_id, SelectionDraw.probability, SelectionDraw.selected)
            .join(Item, Item.id == SelectionDraw.item_pk)
            .where(SelectionDraw.project_id == pid)
        ).all()
    return pd.DataFrame(rows, columns=["item_id", "probability", "selected"])


def selected_pks(s: Session, project_id: int) -> set[int] | None:
    """Inside a session: the drawn items' keys, or None when the project has no sample."""
    rows = s.execute(
        select(SelectionDraw.item_pk, SelectionDraw.selected).where(
            SelectionDraw.project_id == project_id
        )
    ).all()
    return {pk for pk, chosen in rows if chosen} if rows else None
