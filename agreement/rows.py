"""Display entries of one evaluator block of the JSON document, section by section.

The renderers that take the JSON (reports, the side panel) read an evaluator's measures
through here; the rows of the long form come from the typed results themselves
(:meth:`agreement.evaluator.EvaluatorAgreement.rows`, :mod:`agreement.measure_result`).
"""

from __future__ import annotations

from typing import Any

from agreement.measures import (
    BIAS,
    BINARY,
    EVALUATOR,
    Entry,
    measures,
    read,
)

#: The key of the evaluator block's ``reasons`` that says why a section's block is missing.
_WHY_MISSING = {BINARY: "binary", BIAS: "bias"}


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
            out.append(Entry(m, m.view.header, None, None, None, None, None, why))
        else:
            out += read(m, block)
    return out
