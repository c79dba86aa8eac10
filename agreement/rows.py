"""The agreement document as rows: every declared measure of every variable, in order.

:func:`document_rows` walks the JSON document once per measure section, so whatever is
declared in the measure registry (built-ins, a declared kind's question types, a plugin)
becomes rows; the exported bundle and the renderers take the rows and the measures.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agreement.measures import (
    AMONG_PEOPLE,
    BIAS,
    BINARY,
    EVALUATOR,
    EVALUATOR_SECTIONS,
    Entry,
    Measure,
    measures,
    read,
)
from common.rows import MeasureRow

PEOPLE = "people"
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


def _people(data: dict[str, Any]) -> Iterator[MeasureRow]:
    for sec in ("fields", "derived"):
        for name, f in (data.get(sec) or {}).items():
            for m in measures(AMONG_PEOPLE):
                if not _present(m, f):
                    continue
                if m.applies(f["type"]):
                    for e in read(m, f):
                        yield _row(AMONG_PEOPLE, PEOPLE, name, e)
                else:
                    why = m.reason_not_applicable()
                    yield MeasureRow(
                        AMONG_PEOPLE, PEOPLE, name, m.key, None, None, None, None, None, why
                    )


def _present(m: Measure, f: dict[str, Any]) -> bool:
    """False for a measure left out of this document (``keep`` limited what was computed)."""
    return m.compute is None or m.key in f


def document_rows(data: dict[str, Any]) -> tuple[MeasureRow, ...]:
    """Every measure of the JSON document ``data`` as rows: people first (fields, then
    derived scores), then each evaluator's fields section by section. A measure that does
    not apply to a field's type is a row too, undefined, with the reason."""
    rows = list(_people(data))
    for section in EVALUATOR_SECTIONS:
        for subject, by_field in (data.get("evaluators") or {}).items():
            for name, e in by_field.items():
                rows += [_row(section, subject, name, x) for x in evaluator_entries(e, section)]
    return tuple(rows)
