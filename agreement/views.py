"""Typed views of the agreement JSON document, for the renderers that take the JSON.

The document's sections (``fields``, ``derived``, ``evaluators``, and the figures with
the excluded annotators) are laid out here, in one place: reports, pages, the side panel
and the API read a variable or an evaluator's block through :func:`variables`,
:func:`variable`, :func:`evaluator_views` and their kin, never by indexing the document.
The views carry the JSON block as it is (the renderers' output stays what it was) with
the typed readers of its measures (:class:`agreement.measures.Entry`) and its long-form
rows (:class:`common.rows.MeasureRow`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agreement.measure_result import PEOPLE
from agreement.measures import EVALUATOR, DetailEntry, Entry, Measure
from agreement.rows import evaluator_entries
from agreement.statistics import field_details, field_entries
from common.rows import MeasureRow

#: The document's sections of human fields, derived scores and evaluator blocks.
FIELDS, DERIVED, EVALUATORS = "fields", "derived", "evaluators"

Doc = Mapping[str, Any]
Block = dict[str, Any]


def _ci(ci: Any) -> tuple[float, float] | None:
    return (float(ci[0]), float(ci[1])) if ci else None


def _row(e: Entry, subject: str, field: str) -> MeasureRow:
    m = e.measure
    return MeasureRow(
        m.section, subject, field, m.key, e.level, e.value, _ci(e.ci), e.n, e.p, e.reason
    )


@dataclass(frozen=True)
class VariableView:
    """One human field (or derived score, ``derived``) of the document: its JSON block."""

    name: str
    block: Block
    derived: bool = False

    @property
    def level(self) -> str | None:
        """The field's level of measurement (nominal, ordinal, ...)."""
        return self.block.get("level")

    @property
    def n_items(self) -> int:
        """The items (units) labelled."""
        return int(self.block.get("n_items") or 0)

    @property
    def n_pairable(self) -> int:
        """The items with two or more labels."""
        return int(self.block.get("n_pairable") or 0)

    def entries(self, keep: Callable[[Measure], bool] | None = None) -> list[Entry]:
        """The declared statistics among people that apply to the field, in order."""
        return field_entries(self.block, keep)

    def details(self, kind: str | None = None) -> list[DetailEntry]:
        """The declared details (notes, per-pair values) in the block."""
        return field_details(self.block, kind)

    def rows(self) -> tuple[MeasureRow, ...]:
        """The statistics among people that apply, as long-form rows (subject "people"):
        the rows the block was written from, but for an n the JSON keeps none of (Cohen's
        pair mean)."""
        return tuple(_row(e, PEOPLE, self.name) for e in self.entries())


@dataclass(frozen=True)
class EvaluatorView:
    """One evaluator (configuration label) on one field: its JSON block."""

    evaluator: str
    field: str
    block: Block

    @property
    def n(self) -> int:
        """The items scored by the evaluator and labelled by people."""
        return int(self.block.get("n") or 0)

    @property
    def binary(self) -> Block | None:
        """The binary decision block (confusion table, P/R/F1), when computed."""
        return self.block.get("binary")

    @property
    def bias(self) -> Block | None:
        """The bias-by-generator block, when computed."""
        return self.block.get("bias")

    def entries(self, section: str = EVALUATOR) -> list[Entry]:
        """The entries of every measure of ``section`` (see :func:`evaluator_entries`)."""
        return evaluator_entries(self.block, section)

    def rows(self, section: str = EVALUATOR) -> tuple[MeasureRow, ...]:
        """The measures of ``section`` as long-form rows (subject: the evaluator)."""
        return tuple(_row(e, self.evaluator, self.field) for e in self.entries(section))


def _section(doc: Doc, name: str) -> dict[str, Any]:
    return doc.get(name) or {}


def variables(doc: Doc, derived: bool = True) -> list[VariableView]:
    """Every human field, then (unless ``derived`` is False) every derived score."""
    out = [VariableView(n, b) for n, b in _section(doc, FIELDS).items()]
    if derived:
        out += [VariableView(n, b, True) for n, b in _section(doc, DERIVED).items()]
    return out


def variable_names(doc: Doc, derived: bool = True) -> list[str]:
    """The names of :func:`variables`, in document order."""
    return [v.name for v in variables(doc, derived)]


def variable(doc: Doc, name: str | None, derived: bool = True) -> VariableView | None:
    """The human field ``name`` (else, unless ``derived`` is False, the derived score);
    None when the document has neither."""
    if name is None:
        return None
    block = _section(doc, FIELDS).get(name)
    if block is not None:
        return VariableView(name, block)
    block = _section(doc, DERIVED).get(name) if derived else None
    return VariableView(name, block, True) if block is not None else None


def evaluator_views(doc: Doc, field: str | None = None) -> list[EvaluatorView]:
    """Every evaluator block, evaluator by evaluator in document order (of ``field``
    only, when given)."""
    return [
        EvaluatorView(ev, f, block)
        for ev, by_field in _section(doc, EVALUATORS).items()
        for f, block in by_field.items()
        if field is None or f == field
    ]


def evaluator_view(doc: Doc, evaluator: str, field: str | None) -> EvaluatorView | None:
    """Evaluator ``evaluator`` on ``field``; None when it has no block there."""
    block = (_section(doc, EVALUATORS).get(evaluator) or {}).get(field) if field else None
    return EvaluatorView(evaluator, field, block) if field and block is not None else None


def by_evaluator(doc: Doc) -> dict[str, dict[str, Block]]:
    """Evaluator -> field -> block, a copy of the document's evaluator section."""
    return {ev: dict(by_field) for ev, by_field in _section(doc, EVALUATORS).items()}


def evaluator_names(doc: Doc) -> list[str]:
    """The evaluators (configuration labels) of the document, in order."""
    return list(_section(doc, EVALUATORS))


def scored_fields(doc: Doc) -> list[str]:
    """The fields some evaluator scores, sorted."""
    return sorted({v.field for v in evaluator_views(doc)})


def with_excluded(doc: Doc) -> Doc | None:
    """The figures computed with the excluded annotators (None when nobody is excluded)."""
    return (doc.get("exclusions") or {}).get("with_excluded")
