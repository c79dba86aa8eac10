"""The alignment document a report carries (``Report.alignment``), computed in one place
for every caller that builds a report (CLI, Agreement page, Audit page)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from annotation_store import Store


def alignment_for_report(
    store: Store, project: str, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> dict[str, Any] | None:
    """The alignment document of the project's default field, None when no evaluator
    version has scored a field the people labelled."""
    from alignment.inputs import AlignmentError
    from alignment.table import alignment_table

    try:
        doc = alignment_table(store, project, n_resamples=n_resamples, seed=seed)
    except AlignmentError:
        return None
    return doc if doc["versions"] else None
