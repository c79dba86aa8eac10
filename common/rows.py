"""The agreement document's long form: one frozen row per measure of one variable.

Standard library only, so every layer (the exported bundle in ``interop`` too) can take
the rows without importing the statistics that made them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeasureRow:
    """One measure of one variable: who is compared (``subject``: "people" or an
    evaluator's label), on which field, the measure's key and section, the level (alpha's
    levels; None elsewhere), the value with its 95% CI, n and p, and why it is undefined."""

    section: str
    subject: str
    field: str
    measure: str
    level: str | None
    value: float | None
    ci: tuple[float, float] | None
    n: int | None
    p: float | None
    reason: str | None
