"""Every measure the agreement document reports, declared once in one registry.

A :class:`Measure` says which section of the document it belongs to (among people,
evaluator vs people, binary decision, bias, judge probes, or a section a declared question
type brings), the field types it applies to (by name, or by the question type's
properties: level, categories, structured answer), how it computes its result (a
:class:`~agreement.results.Stat` with CI, n and p) and where the result goes in the JSON.
How it is shown (header, short label, decimals, method note, the places that list or draw
it) is a separate :class:`MeasureView`, held as ``measure.view``: the computation never
reads it, the renderers read only it (and the JSON keys). The document's rows, the JSON,
the reports, the side panel, the Agreement page and the exported bundle all iterate
:func:`measures`. An old-style call, ``Measure(key, header, name, applies_to, digits=...,
compute=...)``, still builds the view (:meth:`Measure.legacy`), for plugins.

Built-in measures are found by importing every module of ``agreement.builtin_measures``;
installed packages add theirs through the entry point group ``metric_audit.statistics``
(an entry point names a module that registers on import, or a ``Measure`` itself).

Where a measure's values sit in the JSON document: each section has one block per
variable (the field block among people; the evaluator's block of one field; its
``binary`` and ``bias`` blocks). A measure reads ``block[key]``, ``block[ci_key]``,
``block[n_key]`` and ``block[p_key]``; a ``nested`` one (the correlations) reads
``block[key]`` as ``{"r", "p", "ci", "n", "reason"}``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from common.registry import Registry
from kinds.question_registry import maybe_for_field

AMONG_PEOPLE = "among_people"
EVALUATOR = "evaluator_vs_people"
BINARY = "binary_decision"
BIAS = "bias"
PROBES = "judge_probes"
#: The built-in sections in document order; a declared question type may name its own.
SECTIONS = (AMONG_PEOPLE, EVALUATOR, BINARY, BIAS, PROBES)
#: Sections whose measures describe one evaluator against the people on one field.
EVALUATOR_SECTIONS = (EVALUATOR, BINARY, BIAS)
ENTRY_POINT_GROUP = "metric_audit.statistics"
DASH = "—"
#: Kinds of :class:`Detail`: a sentence on which units the measure uses, or one value per
#: annotator pair.
NOTE = "note"
PAIRS = "pairs"


@dataclass(frozen=True)
class Detail:
    """A detail a measure carries beside its value in the JSON block, declared so that
    renderers read it through :func:`read_details` and never by key name.

    ``key`` is the block entry (a sentence for a ``NOTE``, pair -> value for ``PAIRS``),
    ``n_key`` the pairs' shared-item counts (None: shown without n), ``label`` the heading
    of narrow places (text report) and ``long`` of wide ones (HTML / Markdown notes;
    defaults to ``label``); ``in_notes``: listed among the reports' field notes;
    ``chart``: the pairs are drawn as a heatmap, greying the pairs listed under
    ``few_key`` (those sharing fewer items than the block's ``minimum_key``).
    """

    key: str
    kind: str = PAIRS
    label: str = ""
    long: str = ""
    n_key: str | None = None
    in_notes: bool = False
    chart: bool = False
    few_key: str | None = None
    minimum_key: str | None = None

    @property
    def heading(self) -> str:
        """The heading of wide places."""
        return self.long or self.label


@dataclass(frozen=True)
class PairValue:
    """One annotator pair's value of a ``PAIRS`` detail, with the items the pair shares."""

    pair: str
    value: float | None
    n: int | None


@dataclass(frozen=True)
class DetailEntry:
    """A declared detail read back from one JSON block: the note's text (``NOTE``) or the
    pairs (``PAIRS``), with the measure's n (``n``) beside a note, and for pairs the
    minimum overlap and the pairs below it when the block has them (else None)."""

    measure: Measure
    detail: Detail
    text: str | None
    pairs: tuple[PairValue, ...]
    n: int | None
    minimum: int | None = None
    few: tuple[str, ...] | None = None


@dataclass(frozen=True)
class MeasureView:
    """How a measure is shown: its names, decimals, method note, and the places that draw
    or list it. Renderers read it as ``measure.view``; the computation never does (but for
    ``name`` in the reason of a field type it does not cover)."""

    header: str
    name: str
    short: str = ""
    method: str = ""
    digits: int = 3
    #: listed in the side panel
    panel: bool = False
    #: a column of the reports' summary tables
    summary: bool = False
    #: drawn in the reliability bar chart (alpha by level, Fleiss' kappa)
    chart: bool = False
    #: leads the side panel whenever it is defined (Krippendorff's alpha: any number of
    #: raters, missing ratings, the field's level)
    leads: bool = False
    #: drawn on the evaluator's score scatter plot beside its least-squares line
    fit: bool = False
    #: a per-level measure whose levels are ranked (the Bradley-Terry systems): drawn as
    #: a ranking chart, one bar per level in the stored order, with its CI
    ranking: bool = False
    #: field types on which this is the headline figure of an evaluator (the alignment
    #: table's chart draws it by version)
    headline: frozenset[str] = frozenset()
    #: details carried beside the value (notes, per-pair values), in display order
    details: tuple[Detail, ...] = ()

    @property
    def label(self) -> str:
        """The short label of narrow places (the side panel); defaults to the header."""
        return self.short or self.header

    def format(self, value: float | None) -> str:
        """The value as shown in tables: fixed decimals, or a dash when undefined."""
        return DASH if value is None else f"{value:.{self.digits}f}"

    def format_ci(self, ci: Any) -> str:
        """A 95% interval with the same decimals as the estimate, or a dash."""
        if not ci:
            return DASH
        return f"[{ci[0]:.{self.digits}f}, {ci[1]:.{self.digits}f}]"

    def format_p(self, p: float | None) -> str:
        """A p-value with four decimals, or a dash."""
        return DASH if p is None else f"{p:.4f}"


#: The keyword arguments of an old-style ``Measure(key, header, name, applies_to, ...)``
#: call that belong to its :class:`MeasureView` (see :meth:`Measure.legacy`).
VIEW_FIELDS = tuple(f.name for f in fields(MeasureView))


class _Declared(type):
    """Measure's type: an old-style call (header and name beside the key, display keywords
    among the spec's) builds the view, so plugins declared that way keep working."""

    def __call__(cls, *args: Any, **kw: Any) -> Any:
        if (len(args) > 1 and isinstance(args[1], str)) or "header" in kw:
            return cls.legacy(*args, **kw)  # type: ignore[attr-defined]
        return super().__call__(*args, **kw)


@dataclass(frozen=True)
class Measure(metaclass=_Declared):
    """One measure: where it sits in the document, what it applies to, how it computes and
    where its values go in the JSON; how it is shown is its ``view``.

    ``compute`` takes the section's input (a ``StatContext`` among people, an
    ``EvaluatorAgreement`` in the evaluator sections) and returns a ``Stat``; None means
    the engine computes it with its neighbours (one bootstrap for three correlations) and
    the declaration drives the rows and renderers only.
    """

    key: str
    view: MeasureView
    applies_to: frozenset[str] = frozenset()
    compute: Callable[[Any], Any] | None = None
    ci_key: str | None = None
    n_key: str | None = None
    per_level: bool = False
    not_applicable: str = ""
    section: str = AMONG_PEOPLE
    p_key: str | None = None
    nested: bool = False
    #: computed on every field type (``compute`` itself says when a type does not fit);
    #: ``applies_to`` then only says where it is shown
    always: bool = False
    #: the JSON key layout of the measure's block entries, in order: ``value``, ``ci``,
    #: ``n`` and ``p`` stand for ``key``, ``ci_key``, ``n_key`` and ``p_key`` (skipped when
    #: unset); any other name is an entry of the result's ``extra`` (skipped when absent).
    #: Entries of ``extra`` not named here follow in their own order.
    layout: tuple[str, ...] = ("value", "ci", "n", "p")
    #: the order of the measure's entries in the block's ``reasons``: ``value`` is its own
    #: reason (one per level), a name of ``extra`` the reasons of that entry (the name or
    #: ``name.<part>``); unplaced reasons follow. None: ``("value",)``.
    reason_layout: tuple[str, ...] | None = None
    #: the measures of a lower rank come first in the JSON block (declaration order within
    #: a rank); the classic statistics among people are rank 0, as the document always had
    json_rank: int = 1
    #: applies, besides the types named in ``applies_to``, to every question type whose
    #: properties this accepts (``kinds.question_type.QuestionType``: level, agreement
    #: levels, categories, numeric, structured)
    applies_when: Callable[[Any], bool] | None = None
    #: in the block of a plain (unstructured) field it does not apply to, shown as a null
    #: with its reason, as the document always had it; False: only where it applies.
    #: A structured question's block never shows a measure that does not apply to it.
    listed: bool = True

    @classmethod
    def legacy(
        cls, key: str, header: str, name: str, applies_to: frozenset[str] = frozenset(), **kw: Any
    ) -> Measure:
        """A measure declared the old way, names and display keywords beside the spec's
        (``Measure(key, header, name, applies_to, digits=..., compute=...)``): the display
        keywords (:data:`VIEW_FIELDS`) go to its view."""
        view = {k: kw.pop(k) for k in VIEW_FIELDS if k in kw}
        return type.__call__(cls, key, MeasureView(header, name, **view), applies_to, **kw)

    def __post_init__(self) -> None:
        # a computed measure keeps its CI and n beside it under derived keys
        if self.compute is not None and self.ci_key is None:
            object.__setattr__(self, "ci_key", f"{self.key}_ci")
        if self.compute is not None and self.n_key is None:
            object.__setattr__(self, "n_key", f"{self.key}_n_items")
        if self.compute is not None and self.p_key is None and self.section != AMONG_PEOPLE:
            object.__setattr__(self, "p_key", f"{self.key}_p")

    def applies(self, type_: str) -> bool:
        """True when the measure is reported for fields of ``type_``: named, or a question
        type whose properties ``applies_when`` accepts."""
        if type_ in self.applies_to:
            return True
        if self.applies_when is None:
            return False
        qt = maybe_for_field(type_)
        return qt is not None and bool(self.applies_when(qt))

    def reason_not_applicable(self) -> str:
        """The reason stored with a null for a field type the measure does not cover."""
        kinds = ", ".join(sorted(self.applies_to))
        return self.not_applicable or f"{self.view.name} is reported for {kinds} fields"

    def json_slots(self) -> tuple[tuple[str, str], ...]:
        """The layout resolved to (slot, JSON key) pairs; slot is value, ci, n, p or
        extra."""
        keys = {"value": self.key, "ci": self.ci_key, "n": self.n_key, "p": self.p_key}
        out = []
        for name in self.layout:
            if name not in keys:
                out.append(("extra", name))
            elif keys[name]:
                out.append((name, str(keys[name])))
        return tuple(out)

    def write(self, out: dict[str, Any], stat: Any) -> None:
        """Put a computed ``Stat`` into JSON block ``out`` under this measure's keys."""
        out[self.key] = stat.value
        if self.ci_key:
            out[self.ci_key] = list(stat.ci) if stat.ci else None
        if self.n_key:
            out[self.n_key] = stat.n
        if self.p_key:
            out[self.p_key] = stat.p
        out.update(stat.extra or {})


@dataclass(frozen=True)
class Entry:
    """One measure of one variable, read back from the JSON document for display."""

    measure: Measure
    label: str
    level: str | None
    value: float | None
    ci: Any
    n: int | None
    n_units: int | None
    reason: str | None
    p: float | None = None

    @property
    def text(self) -> str:
        """The formatted value."""
        return self.measure.view.format(self.value)

    @property
    def ci_text(self) -> str:
        """The formatted interval."""
        return self.measure.view.format_ci(self.ci)

    @property
    def p_text(self) -> str:
        """The formatted p-value."""
        return self.measure.view.format_p(self.p)

    @property
    def n_text(self) -> str:
        """n of the variable's units, e.g. ``14/20`` (just n when units are not counted)."""
        if self.n is None:
            return DASH
        return str(self.n) if self.n_units is None else f"{self.n}/{self.n_units}"


def read(m: Measure, block: dict[str, Any], n_units: int | None = None) -> list[Entry]:
    """The entries of measure ``m`` in one JSON block (one per level when per level)."""
    reasons = block.get("reasons") or {}
    if m.nested:
        c = block.get(m.key) or {}
        return [
            Entry(
                m,
                m.view.header,
                None,
                c.get("r"),
                c.get("ci"),
                c.get("n"),
                n_units,
                c.get("reason"),
                c.get("p"),
            )
        ]
    n = block.get(m.n_key) if m.n_key else None
    cis = block.get(m.ci_key) if m.ci_key else None
    p = block.get(m.p_key) if m.p_key else None
    if m.per_level:
        # n is one for all levels, or one per level (a dict)
        return [
            Entry(
                m,
                f"{m.view.header} {level}",
                level,
                value,
                (cis or {}).get(level),
                n.get(level) if isinstance(n, dict) else n,
                None if isinstance(n, dict) else n_units,
                reasons.get(f"{m.key}.{level}"),
                p,
            )
            for level, value in (block.get(m.key) or {}).items()
        ]
    value = block.get(m.key)
    reason = (reasons.get(m.key) or block.get("reason")) if value is None else None
    return [Entry(m, m.view.header, None, value, cis, n, n_units, reason, p)]


def read_details(m: Measure, block: dict[str, Any], kind: str | None = None) -> list[DetailEntry]:
    """The declared details of measure ``m`` present in one JSON block (of ``kind`` when
    given), in declaration order; an absent or empty detail is left out."""
    out = []
    for d in m.view.details:
        if kind is not None and d.kind != kind:
            continue
        raw = block.get(d.key)
        if not raw:
            continue
        n = block.get(m.n_key) if m.n_key else None
        if d.kind == NOTE:
            out.append(DetailEntry(m, d, str(raw), (), n))
            continue
        counts = (block.get(d.n_key) or {}) if d.n_key else {}
        pairs = tuple(
            PairValue(k, v, counts.get(k, 0) if d.n_key else None) for k, v in raw.items()
        )
        minimum = block.get(d.minimum_key) if d.minimum_key else None
        few = block.get(d.few_key) if d.few_key else None
        out.append(DetailEntry(m, d, None, pairs, n, minimum, None if few is None else tuple(few)))
    return out


def _adopt(obj: object) -> None:
    """An entry point naming a ``Measure`` directly (not its module)."""
    if not isinstance(obj, Measure):
        raise TypeError(f"{obj!r} is not a Measure")
    register_measure(obj)


def _check(name: str, obj: object) -> None:
    """A measure entry is a ``Measure`` registered as ``section:key``."""
    if not isinstance(obj, Measure):
        raise TypeError(f"measure {name!r}: {obj!r} is not a Measure")
    if name != f"{obj.section}:{obj.key}":
        raise TypeError(f"measure {name!r}: it is declared as {obj.section}:{obj.key}")


MEASURES: Registry[Measure] = Registry(
    "measure",
    package="agreement.builtin_measures",
    entry_point_group=ENTRY_POINT_GROUP,
    adopt=_adopt,
    check=_check,
)


def register_measure(m: Measure) -> Measure:
    """Add a measure (its key must be new within its section); returns it."""
    name = f"{m.section}:{m.key}"
    MEASURES.discover()  # built-ins first: declaration order is display order
    if not MEASURES.add_if_absent(name, m):
        raise ValueError(f"measure {m.key!r} is declared twice")
    return m


def unregister_measure(key: str, section: str = AMONG_PEOPLE) -> None:
    """Forget the measure declared under ``key`` in ``section``."""
    MEASURES.remove(f"{section}:{key}")


def headline(field_type: str) -> str:
    """The key of the evaluator measure declared as the headline for ``field_type``
    (Pearson's r when none is)."""
    keys = [m.key for m in measures(*EVALUATOR_SECTIONS) if field_type in m.view.headline]
    return keys[0] if keys else "pearson"


def fit_measure() -> Measure | None:
    """The evaluator measure shown on the score scatter plot (Pearson's r), if declared."""
    return next((m for m in measures(EVALUATOR) if m.view.fit), None)


def measures(*sections: str) -> tuple[Measure, ...]:
    """Every declared measure of ``sections`` (all when none given), in declaration order."""
    return tuple(m for m in MEASURES.values() if not sections or m.section in sections)
