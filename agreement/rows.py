"""The evaluator sections of the agreement document as rows and display entries.

:func:`evaluator_rows` walks the evaluators' JSON once per measure section, so whatever
is declared in the measure registry (built-ins, a plugin) becomes rows; the rows among
people come from the computed results themselves (:mod:`agreement.measure_result`).
"""

from __future__ import annotations

from typing import Any

from agreement.measures import (
    BIAS,
    BINARY,
    EVALUATOR,
    EVALUATOR_SECTIONS,
    Entry,
    measures,
    read,
)
from common.rows import MeasureRow

#: The key of the evaluator block's ``reasons`` that says why a section's block is missing.
_WHY_MISSING = {BINARY: "binary", BIAS: "bias"}


def _ci(ci: Any) -> tuple[float, float] | None:
    return (float(ci[0]), float(ci[1])) if isinstance(ci, list | tuple) and len(ci) == 2 else None


def _row(section: str, subject: str, field: str, e: Entry) -> MeasureRow:
    return MeasureRow(
        section,
        subject,
        field,
        e.measure.key,
        e.level,
        e.value,
        _ci(e.ci),
        e.n,
        e.p,
        e.reason,
    )


def evaluator_block(e: dict[str, Any], section: str) -> dict[str, Any] | None:
    """Where measures of ``section`` sit in one evaluator-and-field JSON block."""
    return {BINARY: e.get("binary"), BIAS: e.get("bias")}.get(section, e)


def evaluator_entries(e: dict[str, Any], section: str = EVALUATOR) -> list[Entry]:
    """The entries of every measure of ``section`` in evaluator block ``e``; a section
    whose block is missing gives undefined entries with the engine's reason."""
    block = evaluator_block(e, section)
    out: list[Entry] = []
    for m in measures(section):
        if block is None:
            why = (e.get("reasons") or {}).get(_WHY_MISSING.get(section, ""), "not computed")
            out.append(Entry(m, m.header, None, None, None, None, None, why))
        else:
            out += read(m, block)
    return out


def evaluator_rows(evaluators: dict[str, dict[str, Any]]) -> tuple[MeasureRow, ...]:
    """Every evaluator-section measure of the document's ``evaluators`` JSON as rows:
    section by section, each evaluator's fields in order."""
    rows: list[MeasureRow] = []
    for section in EVALUATOR_SECTIONS:
        for subject, by_field in evaluators.items():
            for name, e in by_field.items():
                rows += [_row(section, subject, name, x) for x in evaluator_entries(e, section)]
    return tuple(rows)
