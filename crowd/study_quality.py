"""Quality of a crowd study: active time, speeders, flags, dashboard.

The checks agreement reads (the gold items and the workers who did not qualify, which
never enter agreement, and the times the speeder alarm reads) are one store read,
``Store.study_checks``, made once per load by ``study_inputs.labels``. ``crowd_flags`` is
the one list of flagged workers (for exclusions elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
from sqlalchemy import select

from annotation_store.models import Annotator, Item, ItemProgress, Project
from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from crowd import workers as crowd
from studies import gold
from studies.flow_settings import study_of


@dataclass(frozen=True)
class Flag:
    """A worker flagged by the study's checks: who, why, and which check said so."""

    annotator: str
    reason: str
    source: str  # qualification / gold / speed


def record_active_seconds(
    store: Store, project: str, item_id: str, annotator: str, seconds: float
) -> None:
    """Add the browser-measured active time to the annotator's progress on the item."""
    if seconds < 0:
        raise StoreError("active time cannot be negative")
    with store.write() as s:
        row = s.scalar(
            select(ItemProgress)
            .join(Item, Item.id == ItemProgress.item_pk)
            .join(Project, Project.id == Item.project_id)
            .join(Annotator, Annotator.id == ItemProgress.annotator_id)
            .where(Project.name == project, Item.item_id == item_id, Annotator.name == annotator)
        )
        if row is None:
            raise StoreError(f"{annotator!r} has not started item {item_id!r}")
        row.active_seconds = round((row.active_seconds or 0.0) + seconds, 1)


def active_times(store: Store, project: str) -> pd.DataFrame:
    """Submitted items with a measured active time (``Store.active_times``)."""
    return store.active_times(project)


def platform_times(store: Store, project: str) -> tuple[pd.DataFrame, str | None]:
    """Submitted items with a time on task a platform reported, and where it came from
    (``Store.platform_times``)."""
    return store.platform_times(project)


def median_active(store: Store, project: str) -> dict[str, float]:
    """annotator -> median active seconds per submitted item."""
    times = active_times(store, project)
    return {
        who: float(g["active_seconds"].median()) for who, g in times.groupby("annotator", sort=True)
    }


def speeders(store: Store, project: str) -> dict[str, float]:
    """Workers whose median time is below ``speeder_share`` x the median of all workers'
    medians: annotator -> their share of it."""
    share = study_of(store.project(project).settings).speeder_share
    medians = median_active(store, project)
    if share <= 0 or len(medians) < 2:
        return {}
    overall = float(pd.Series(list(medians.values())).median())
    if overall <= 0:
        return {}
    return {w: m / overall for w, m in medians.items() if m < share * overall}


def low_gold(store: Store, project: str) -> dict[str, tuple[int, int]]:
    """Workers below the study's gold threshold (after ``gold_min`` answers)."""
    study = study_of(store.project(project).settings)
    if study.gold_threshold <= 0:
        return {}
    return {
        who: (right, n)
        for who, (right, n) in gold.gold_accuracy(store, project).items()
        if n >= study.gold_min and right / n < study.gold_threshold
    }


def not_qualified(store: Store, project: str) -> set[str]:
    """Workers whose training fell below the qualification threshold."""
    return {p.annotator for p in crowd.participants(store, project) if p.qualified is False}


def crowd_flags(store: Store, project: str) -> list[Flag]:
    """Every flag the study's checks raise, by annotator then source."""
    study = study_of(store.project(project).settings)
    flags = [
        Flag(who, "training below the qualification threshold", "qualification")
        for who in not_qualified(store, project)
    ]
    flags += [
        Flag(who, f"gold accuracy {right}/{n} below {study.gold_threshold:.0%}", "gold")
        for who, (right, n) in low_gold(store, project).items()
    ]
    flags += [
        Flag(who, f"median active time {ratio:.0%} of the workers' median", "speed")
        for who, ratio in speeders(store, project).items()
    ]
    return sorted(flags, key=lambda f: (f.annotator, f.source))


def should_stop(store: Store, project: str, annotator: str) -> bool:
    """True when the study stops workers below the gold threshold and this one is."""
    study = study_of(store.project(project).settings)
    return study.gold_stop and annotator in low_gold(store, project)


def dashboard(store: Store, project: str) -> dict[str, Any]:
    """The study's figures: workers started (came in and did not decline), qualified,
    completed, flagged; items complete (k reached, gold excluded), median active time
    and the estimated cost (active hours x the study's hourly rate)."""
    from studies.assignments import annotation_settings

    info = store.project(project)
    study = study_of(info.settings)
    people = crowd.participants(store, project)
    flagged = {f.annotator for f in crowd_flags(store, project)}
    golds = set(gold.gold_items(store, project))
    frame = store.progress_frame(project)
    done = frame[(frame["status"] == "submitted") & ~frame["item_id"].isin(golds)]
    per_item = done.groupby("item_id")["annotator"].nunique()
    k = annotation_settings(info.settings).k
    times = active_times(store, project)
    total_hours = float(times["active_seconds"].sum()) / 3600 if len(times) else 0.0
    median = float(times["active_seconds"].median()) if len(times) else None
    return {
        "project": project,
        "workers_started": sum(1 for p in people if p.stage != "declined"),
        "declined": sum(1 for p in people if p.stage == "declined"),
        "qualified": sum(1 for p in people if p.qualified),
        "not_qualified": sum(1 for p in people if p.qualified is False),
        "completed": sum(1 for p in people if p.stage == "done"),
        "flagged": len(flagged),
        "items": len(store.item_ids(project)) - len(golds),
        "items_complete": int((per_item >= k).sum()),
        "median_active_seconds": median,
        "active_hours": round(total_hours, 3),
        "estimated_cost": round(total_hours * study.hourly_rate, 2),
        "hourly_rate": study.hourly_rate,
    }


def completion_table(store: Store, project: str) -> pd.DataFrame:
    """Completed workers: platform ids, completion code, flags and bonus eligibility
    (completed and not flagged)."""
    flags: dict[str, list[str]] = {}
    for f in crowd_flags(store, project):
        flags.setdefault(f.annotator, []).append(f.source)
    rows = []
    for p in crowd.participants(store, project):
        if p.stage != "done":
            continue
        rows.append(
            {
                "annotator": p.annotator,
                "platform": p.platform,
                "worker_id": next(iter(p.platform_ids.values()), ""),
                "completion_code": p.completion_code or "",
                "flags": ", ".join(flags.get(p.annotator, [])),
                "bonus_eligible": p.annotator not in flags,
            }
        )
    cols = ["annotator", "platform", "worker_id", "completion_code", "flags", "bonus_eligible"]
    return pd.DataFrame(rows, columns=cols)


def completion_csv(store: Store, project: str) -> bytes:
    """The completion table as CSV (through the project's one CSV writer)."""
    from common.csv_safe import csv_bytes

    return csv_bytes(completion_table(store, project))
