"""Free-text questions: no agreement coefficient, only how much was written."""

from __future__ import annotations

import numpy as np

from agreement.measures import Measure, MeasureView
from agreement.ratings import MISSING
from agreement.results import Stat
from agreement.statistics import StatContext, declare


def text_counts(ctx: StatContext) -> Stat:
    """The number of answers, with the items answered and their mean length in extra."""
    r = ctx.ratings
    lengths = np.array([len(str(v)) for v in r.domain], dtype=float)
    given = r.codes[r.codes != MISSING]
    extra = {
        "text_items_answered": int((r.m > 0).sum()),
        "text_mean_characters": float(lengths[given].mean()) if len(given) else None,
    }
    if len(given) == 0:
        return Stat(None, 0, "no answers yet", extra=extra)
    return Stat(float(len(given)), int((r.m > 0).sum()), extra=extra)


TEXT_COUNTS = declare(
    Measure(
        "text_answers",
        MeasureView(
            "answers",
            "Free-text answers (no agreement coefficient for free text)",
            digits=0,
            summary=True,
            method="free text has no agreement coefficient here: the number of answers, the "
            "items answered (n) and the mean answer length in characters.",
        ),
        frozenset({"text"}),
        compute=text_counts,
    )
)
