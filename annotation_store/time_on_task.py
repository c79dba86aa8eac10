"""Time on task brought in with imported labels (Label Studio's lead time, MTurk's work
time): the seconds an annotator spent on an item, kept where the app keeps its own."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import select

from annotation_store.models import Annotator, Item, ItemProgress

if TYPE_CHECKING:
    from annotation_store import Store


def set_time_on_task(
    store: Store,
    project: str,
    seconds: Iterable[tuple[str, str, float]],
    source: str = "imported",
) -> int:
    """Set ``seconds_spent`` for each ``(item_id, annotator, seconds)`` whose progress row
    exists (the labels were imported first), marked with its ``source`` (the platform's
    time, e.g. "MTurk WorkTimeInSeconds", not one the app measured); returns the rows
    set. Non-finite or negative times are not times and are skipped."""
    wanted = {
        (str(item), str(who)): float(s)
        for item, who, s in seconds
        if isinstance(s, int | float) and math.isfinite(s) and s >= 0
    }
    if not wanted:
        return 0
    done = 0
    with store.write() as s:
        pid = store._project_row(s, project).id
        rows = s.execute(
            select(ItemProgress, Item.item_id, Annotator.name)
            .join(Item, Item.id == ItemProgress.item_pk)
            .join(Annotator, Annotator.id == ItemProgress.annotator_id)
            .where(ItemProgress.project_id == pid)
        ).all()
        for progress, item_id, name in rows:
            if (item_id, name) in wanted:
                progress.seconds_spent = wanted[(item_id, name)]
                progress.time_source = source[:64]
                done += 1
    return done
