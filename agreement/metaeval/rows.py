"""The meta-evaluation's rows in the agreement document's long form."""

from __future__ import annotations

from typing import Any

from agreement.measures import measures
from common.rows import MeasureRow

SECTION = "meta_evaluation"
NOT_COMPUTED = (
    "meta-evaluation not computed here: it is drawn where it is shown (`cli.py metaeval`, "
    "the Meta-evaluation tab, the report), or asked for with `agreement --metaeval` when "
    "the project names its columns (setting 'metaeval': field, group, system)"
)


def meta_rows(metaeval: Any) -> tuple[MeasureRow, ...]:
    """The meta-evaluation's rows, or one row per declared statistic saying why none."""
    if metaeval is not None:
        return metaeval.rows()
    return tuple(
        MeasureRow(SECTION, "evaluators", "", m.key, None, None, None, None, None, NOT_COMPUTED)
        for m in measures(SECTION)
    )
