"""The labels a study's figures use: the study's checks (gold items, qualification,
times) read with the labels, then the recorded exclusions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from annotation_store import Store, StudyChecks


@dataclass(frozen=True)
class StudyLabels:
    """One project's labels as the figures take them.

    ``everyone``: the labels agreement may use (no gold item, no worker who failed
    qualification), excluded annotators included; ``labels``: the same without the
    excluded annotators; ``excluded``: annotator -> their exclusion records; ``summary``:
    ``agreement.exclusions.exclusion_summary`` of them (None: nobody excluded);
    ``checks``: the study's checks read with them (gold items, times)."""

    everyone: pd.DataFrame
    labels: pd.DataFrame
    checks: StudyChecks
    excluded: dict[str, list[Any]] = field(default_factory=dict)
    summary: dict[str, Any] | None = None


def load_labels(
    store: Store,
    project: str,
    *,
    exclusions: bool = True,
    statuses: Sequence[str] = ("submitted",),
    times: bool = True,
    compact: bool = False,
) -> StudyLabels:
    """The project's labels with the study's checks and (``exclusions``) the recorded
    exclusions applied; the study is asked once, in the same store reads as the labels
    (``times=False``: without the speeder alarm's times; ``compact``: the name columns
    as categoricals, see ``Store.annotations_frame``)."""
    from agreement.exclusions import exclusion_summary, without_excluded

    checks = store.study_checks(project, times=times)
    read = store.annotations_frame(project, tuple(statuses), categorical=compact)
    everyone = without_checked(read, checks)
    excluded = store.excluded_annotators(project) if exclusions else {}
    if not excluded:
        return StudyLabels(everyone, everyone, checks)
    return StudyLabels(
        everyone,
        without_excluded(everyone, excluded),
        checks,
        excluded,
        exclusion_summary(everyone, excluded),
    )


def without_checked(labels: pd.DataFrame, checks: StudyChecks) -> pd.DataFrame:
    """The labels agreement may use: no gold items, no worker who failed qualification."""
    if not checks.gold_items and not checks.not_qualified or labels.empty:
        return labels
    keep = ~labels["item_id"].isin(checks.gold_items) & ~labels["annotator"].isin(
        checks.not_qualified
    )
    return labels[keep].reset_index(drop=True)


def field_labels(store: Store, project: str, name: str, with_excluded: bool) -> pd.DataFrame:
    """One field's stored labels (item_id, annotator, value) as annotator quality and
    label aggregation read them: every submitted label, or without excluded annotators."""
    from agreement.exclusions import without_excluded
    from agreement.inputs import field_frame

    labels = field_frame(store.annotations_frame(project), name)
    if with_excluded:
        return labels
    return without_excluded(labels, store.excluded_annotators(project))


def apply_crowd_flags(store: Store, project: str) -> list[Any]:
    """Record the crowd study's flags (not qualified, low gold accuracy, speeders) as
    exclusions with their source and reason; returns the records written (none where
    the project runs no crowd study)."""
    from crowd.study_quality import crowd_flags

    return [
        store.exclude_annotator(project, f.annotator, f.reason, source=f.source, by="study checks")
        for f in crowd_flags(store, project)
    ]
