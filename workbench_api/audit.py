"""The disagreement table of the Audit page, headless."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from annotation_store import Store
    from audit.analysis import AuditTable


def comparable(store: Store, project: str) -> list[str]:
    """Fields evaluators can be compared with people on (most-scored first)."""
    from audit.analysis import comparable_fields

    info = store.project(project)
    return comparable_fields(info.task_kind, info.settings, store.scores_frame(project))


def disagreements(
    store: Store,
    project: str,
    *,
    field: str | None = None,
    evaluators: Sequence[str] | None = None,
    reference: bool = False,
    agree_threshold: float = 0.25,
    differ_threshold: float = 0.25,
    human_reference: str = "majority",
) -> tuple[AuditTable, str]:
    """The audit table (evaluators vs people per item) on ``field`` and the field used.

    ``reference`` compares against the adjudicated labels instead of the people's mean;
    ``human_reference`` ``dawid_skene`` / ``mace`` against those aggregated labels on
    nominal fields (adjudicated labels still win). Excluded annotators are left out."""
    from audit.analysis import build_audit_table, comparable_fields
    from evaluators.registry import registry_scales
    from workbench_api.quality import combined_reference

    info = store.project(project)
    scores = store.scores_frame(project)
    fields = comparable_fields(info.task_kind, info.settings, scores)
    field = field or (fields[0] if fields else None)
    if field not in fields:
        raise ValueError(f"cannot compare on {field!r}; choose one of {', '.join(fields)}")
    chosen = list(evaluators) if evaluators else None
    table = build_audit_table(
        info.task_kind,
        info.settings,
        store.items(project),
        audit_labels(store, project),
        scores,
        store.results_frame(project, include_failed=True),
        field,
        evaluators=chosen,
        evaluator_scales=registry_scales(chosen or scores["evaluator"].unique(), field),
        reference=combined_reference(store, project, human_reference, reference),
        agree_threshold=agree_threshold,
        differ_threshold=differ_threshold,
    )
    return table, field


def disagreements_frame(store: Store, project: str) -> pd.DataFrame:
    """The Audit page's table for every field evaluators can be compared on, stacked."""
    import pandas as pd

    frames = []
    for field in comparable(store, project):
        table, _ = disagreements(store, project, field=field)
        frames.append(table.frame.assign(field=field))
    if not frames:
        return pd.DataFrame({"field": pd.Series(dtype="string")})
    return pd.concat(frames, ignore_index=True)


def audit_labels(store: Store, project: str) -> pd.DataFrame:
    """The submitted labels the audit compares with: the agreement filter (no gold items,
    no worker who failed qualification), then without excluded annotators."""
    from study_inputs.labels import load_labels

    return load_labels(store, project).labels
