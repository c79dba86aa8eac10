"""Time on task brought in with imported labels (Label Studio's lead time, MTurk's work
time): the seconds an annotator spent on an item, kept where the app keeps its own."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import select

from annotation_store.models import Annotator, Item, ItemProgress

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from annotation_store import Store


def spread_submission_time(
    store: Store, project: str, totals: Iterable[tuple[str, float]], source: str
) -> tuple[int, int]:
    """Spread each participant's time per submission (Prolific's time taken) evenly over
    their submitted items, as platform time from ``source``. A participant id names the
    annotator ``prolific:ID`` (the workbench's crowd study) or ``ID``. Returns
    (participants matched, progress rows set)."""
    wanted: dict[str, float] = {}
    for who, seconds in totals:
        if isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0:
            for name in (f"prolific:{who}", str(who)):
                wanted[name] = wanted.get(name, 0.0) + float(seconds)
    if not wanted:
        return 0, 0
    with store.write() as s:
        pid = store._project_row(s, project).id
        rows = s.execute(
            select(ItemProgress, Annotator.name)
            .join(Annotator, Annotator.id == ItemProgress.annotator_id)
            .where(
                ItemProgress.project_id == pid,
                ItemProgress.status == "submitted",
                Annotator.name.in_(list(wanted)),
            )
        ).all()
        per_person: dict[str, list[ItemProgress]] = {}
        for progress, name in rows:
            per_person.setdefault(name, []).append(progress)
        for name, mine in per_person.items():
            for progress in mine:
                progress.seconds_spent = round(wanted[name] / len(mine), 1)
                progress.time_source = f"{source} (per submission, spread over its items)"[:64]
    return len(per_person), sum(len(v) for v in per_person.values())


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
        for progress, item_id, name in progress_rows(store, s, project):
            if (item_id, name) in wanted:
                progress.seconds_spent = wanted[(item_id, name)]
                progress.time_source = source[:64]
                done += 1
    return done


def progress_rows(store: Store, s: Session, project: str) -> list[tuple[ItemProgress, str, str]]:
    """Every progress row of ``project`` with its item id and annotator name (in the
    caller's write session, so changes to the rows are saved with it)."""
    pid = store._project_row(s, project).id
    return [
        (progress, item_id, name)
        for progress, item_id, name in s.execute(
            select(ItemProgress, Item.item_id, Annotator.name)
            .join(Item, Item.id == ItemProgress.item_pk)
            .join(Annotator, Annotator.id == ItemProgress.annotator_id)
            .where(ItemProgress.project_id == pid)
        )
    ]
