"""An evaluator against humans on one scored variable: correlations, decisions, bias."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from agreement.bias import bias_from_arrays
from agreement.binary import calibrated, compare, rescale01
from agreement.correlation import correlations
from agreement.inputs import Reference, is_binary_scores
from agreement.measures import BIAS, BINARY, EVALUATOR, EVALUATOR_SECTIONS, Measure, measures
from agreement.results import Bias, BinaryComparison, Correlation, Stat
from common.rows import MeasureRow


@dataclass(frozen=True)
class Computed:
    """A declared measure's result with the JSON keys it is written under (kept apart
    from the declaration: that holds a function, and documents are cached by pickling)."""

    section: str
    key: str
    ci_key: str | None
    n_key: str | None
    p_key: str | None
    stat: Stat

    def row(self, subject: str, field: str) -> MeasureRow:
        """The result as a row of the long form."""
        s = self.stat
        return MeasureRow(
            self.section,
            subject,
            field,
            self.key,
            None,
            s.value,
            (float(s.ci[0]), float(s.ci[1])) if s.ci else None,
            s.n,
            s.p,
            (s.reason or "undefined") if s.value is None else None,
        )

    def write(self, out: dict[str, Any], row: MeasureRow) -> None:
        """Put the result's ``row`` into JSON block ``out``."""
        out[self.key] = row.value
        for key, value in (
            (self.ci_key, list(row.ci) if row.ci else None),
            (self.n_key, row.n),
            (self.p_key, row.p),
        ):
            if key:
                out[key] = value
        if row.value is None:
            out.setdefault("reasons", {})[self.key] = row.reason or "undefined"


@dataclass
class EvaluatorAgreement:
    """One evaluator (one judge model) against the human reference on one variable."""

    evaluator: str
    name: str
    model: str | None
    field: str
    n: int
    n_runs: int
    correlations: dict[str, Correlation]
    binary: BinaryComparison | None = None
    bias: Bias | None = None
    signatures: tuple[str, ...] = ()
    notes: dict[str, str] = field(default_factory=dict)
    #: item_id, score (mean over runs), human (reference): the points behind the figures
    pairs: pd.DataFrame | None = field(default=None, repr=False)
    #: the declared measures with a ``compute`` of the evaluator sections
    declared: tuple[Computed, ...] = ()

    def _section_result(self, section: str) -> Any:
        """The typed result a section's built-in measures are attributes of."""
        return {EVALUATOR: self, BINARY: self.binary, BIAS: self.bias}[section]

    def _builtin_row(self, m: Measure, subject: str) -> MeasureRow:
        """The row of a built-in (engine-computed) measure, from the typed results."""
        if m.nested:
            c = self.correlations.get(m.key)
            if c is None:
                return _undefined_row(m, subject, self.field, "not computed")
            ci = (float(c.ci[0]), float(c.ci[1])) if c.ci else None
            return MeasureRow(
                m.section, subject, self.field, m.key, None, c.r, ci, c.n, c.p, c.reason
            )
        res = self._section_result(m.section)
        if res is None:
            why = self.notes.get(_WHY_MISSING.get(m.section, ""), "not computed")
            return _undefined_row(m, subject, self.field, why)
        value = getattr(res, m.key, None)
        reason = None
        if value is None:
            reason = getattr(res, "notes", {}).get(m.key) or getattr(res, "reason", None)
        return MeasureRow(
            m.section,
            subject,
            self.field,
            m.key,
            None,
            value,
            None,
            getattr(res, m.n_key) if m.n_key else None,
            getattr(res, m.p_key) if m.p_key else None,
            reason,
        )

    def row(self, m: Measure, subject: str | None = None) -> MeasureRow:
        """The row of one declared measure of the evaluator sections (undefined with a
        reason when it was not computed)."""
        subject = subject or self.name
        for c in self.declared:
            if (c.section, c.key) == (m.section, m.key):
                return c.row(subject, self.field)
        if m.compute is None:
            return self._builtin_row(m, subject)
        why = self.notes.get(_WHY_MISSING.get(m.section, ""), "not computed")
        return _undefined_row(m, subject, self.field, why)

    def rows(self, subject: str | None = None) -> tuple[MeasureRow, ...]:
        """Every measure of the evaluator sections as rows (``subject``: the evaluator's
        label, default its name), section by section in declaration order."""
        subject = subject or self.name
        computed = {(c.section, c.key): c for c in self.declared}
        out = []
        for m in measures(*EVALUATOR_SECTIONS):
            c = computed.get((m.section, m.key))
            if c is not None:
                out.append(c.row(subject, self.field))
            elif m.compute is None:
                out.append(self._builtin_row(m, subject))
            elif self._section_result(m.section) is None:
                why = self.notes.get(_WHY_MISSING.get(m.section, ""), "not computed")
                out.append(_undefined_row(m, subject, self.field, why))
        return tuple(out)

    def _write(
        self, section: str, out: dict[str, Any] | None, rows: _Rows
    ) -> dict[str, Any] | None:
        """Write ``section``'s measures into its JSON block from their rows: the
        built-ins over the typed result's keys, then the declared ones."""
        if out is None:
            return None
        for m in measures(section):
            row = rows.get((section, m.key))
            if row is None or m.compute is not None or m.nested:
                continue
            for slot, key in m.json_slots():
                if slot != "extra" and key in out:
                    out[key] = {"value": row.value, "n": row.n, "p": row.p}.get(slot, out[key])
        for c in self.declared:
            if c.section == section:
                c.write(out, rows[(section, c.key)])
        return out

    def _by_key(self) -> _Rows:
        return {(r.section, r.measure): r for r in self.rows()}

    def binary_dict(self) -> dict[str, Any] | None:
        """The binary block: the comparison and the declared binary-decision measures."""
        return self._write(BINARY, self.binary.to_dict() if self.binary else None, self._by_key())

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the issue's shape plus n_runs, model, signatures, reasons),
        its measures written from :meth:`rows`."""
        rows = self._by_key()
        out: dict[str, Any] = {"n": self.n, "n_runs": self.n_runs, "model": self.model}
        for k, c in self.correlations.items():
            row = rows.get((EVALUATOR, k))
            out[k] = _correlation_dict(row, c) if row else c.to_dict()
        out["binary"] = self._write(BINARY, self.binary.to_dict() if self.binary else None, rows)
        out["bias"] = self._write(BIAS, self.bias.to_dict() if self.bias else None, rows)
        out["signatures"] = list(self.signatures)
        out["reasons"] = dict(self.notes)
        declared: dict[str, Any] = {}
        self._write(EVALUATOR, declared, rows)
        out["reasons"].update(declared.pop("reasons", {}))
        out.update(declared)
        return out


_Rows = dict[tuple[str, str], MeasureRow]
#: The key of the evaluator's ``notes`` that says why a section's result is missing.
_WHY_MISSING = {BINARY: "binary", BIAS: "bias"}


def _undefined_row(m: Measure, subject: str, field: str, why: str) -> MeasureRow:
    return MeasureRow(m.section, subject, field, m.key, None, None, None, None, None, why)


def _correlation_dict(row: MeasureRow, c: Correlation) -> dict[str, Any]:
    """A correlation's JSON entry from its row (the CI's reason from the result)."""
    fields = {"r": row.value, "p": row.p, "ci": row.ci, "n": row.n, "reason": row.reason}
    return replace(c, **fields).to_dict()


def compute_declared(res: EvaluatorAgreement, field_type: str) -> tuple[Computed, ...]:
    """The declared evaluator-section measures with a ``compute`` (a measure of the
    binary or bias section only where that block exists)."""
    out = []
    for m in measures(*EVALUATOR_SECTIONS):
        if m.compute is None or {BINARY: res.binary, BIAS: res.bias}.get(m.section, res) is None:
            continue
        stat = (
            m.compute(res) if m.applies(field_type) else Stat.undefined(m.reason_not_applicable())
        )
        out.append(Computed(m.section, m.key, m.ci_key, m.n_key, m.p_key, stat))
    return tuple(out)


@dataclass(frozen=True)
class ItemSpace:
    """Every item id as a code 0..n-1 (in item_id order), with what is known per item.

    The evaluator comparisons work on these codes and on dense per-item arrays instead
    of string-indexed frames.
    """

    ids: np.ndarray
    index: pd.Index
    generator: np.ndarray
    dev: np.ndarray
    test: np.ndarray

    @classmethod
    def build(
        cls, items: pd.DataFrame, score_ids: pd.Series, dev: np.ndarray, test: np.ndarray
    ) -> ItemSpace:
        """Codes for the project's items and every scored item; dev/test per item row."""
        ids = pd.unique(np.concatenate([items["item_id"].to_numpy(object), score_ids.unique()]))
        index = pd.Index(np.sort(np.asarray(ids, dtype=object)))
        at = index.get_indexer(items["item_id"].to_numpy(object))
        generator = np.full(len(index), None, dtype=object)
        generator[at] = items["generator"].to_numpy(object)
        generator[pd.isna(generator)] = None
        d, t = np.zeros(len(index), bool), np.zeros(len(index), bool)
        d[at], t[at] = dev, test
        return cls(index.to_numpy(object), index, generator, d, t)

    def codes(self, ids: pd.Series | np.ndarray) -> np.ndarray:
        """The code of each id (-1 for an id not in the space)."""
        return self.index.get_indexer(np.asarray(ids, dtype=object))

    def dense(self, values: pd.Series | None) -> np.ndarray | None:
        """A per-item series (indexed by item_id) as an array over codes, NaN elsewhere."""
        if values is None:
            return None
        out = np.full(len(self.index), np.nan)
        at = self.codes(values.index)
        found = at >= 0
        out[at[found]] = values.to_numpy(dtype=float)[found]
        return out


@dataclass(frozen=True)
class ScoreRows:
    """One evaluator's scores on one variable: one row per (item, run), in any order."""

    item: np.ndarray  # ItemSpace codes
    run: np.ndarray
    score: np.ndarray
    signatures: tuple[str, ...]

    @property
    def n_runs(self) -> int:
        """Number of distinct runs."""
        return len(np.unique(self.run))

    def canonical(self) -> ScoreRows:
        """The same rows sorted by item code (item_id order), then by score."""
        order = np.lexsort((self.score, self.item))
        return ScoreRows(self.item[order], self.run[order], self.score[order], self.signatures)


@dataclass(frozen=True)
class DenseReference:
    """A :class:`Reference` with its mean and majority as arrays over item codes."""

    ref: Reference
    mean: np.ndarray
    majority: np.ndarray | None

    @classmethod
    def of(cls, ref: Reference, space: ItemSpace) -> DenseReference:
        """Spread ``ref`` over ``space``."""
        return cls(ref, space.dense(ref.mean), space.dense(ref.majority))


def compare_evaluator(
    evaluator: str,
    name: str,
    model: str | None,
    score_field: str,
    rows: ScoreRows,
    reference: DenseReference,
    *,
    space: ItemSpace,
    scale: tuple[float, float] | None,
    binary_against: DenseReference | None,
    binary_is_field: bool,
    graded: bool,
    split_rule: str,
    n_resamples: int,
    seed: int,
    field_type: str = "",
    model_families: Mapping[str, str] | None = None,
    round_item_means: bool = False,
) -> EvaluatorAgreement:
    """Everything about one evaluator on one variable.

    ``binary_against``: the binary human reference its decisions are checked against
    (the field itself or the kind's binary field); ``graded``: bias makes sense (a
    graded, non-binary scale); ``field_type``: the variable's type, which the declared
    measures' ``applies_to`` is checked against. Items are taken in item_id order (their codes) and each
    item's runs are averaged in a fixed order (by score), so neither the bootstrap nor any
    sum depends on the order of the score or label rows.
    """
    rows = rows.canonical()
    per_item = pd.Series(rows.score).groupby(rows.item, sort=True).mean()
    codes, x_all = per_item.index.to_numpy(), per_item.to_numpy()
    notes: dict[str, str] = {}
    if round_item_means:  # FinGrAct's run_average="rounded": half a point rounds up
        x_all = np.floor(x_all + 0.5 + 1e-9)  # 1e-9: a mean meant as x.5 may land just below
        notes["run_average"] = "each item's score is the mean of its runs rounded to whole points"
    y_all = reference.mean[codes]
    both = ~np.isnan(x_all) & ~np.isnan(y_all)
    x, y = x_all[both], y_all[both]
    corr = correlations(x, y, n_resamples=n_resamples, seed=seed)
    out = EvaluatorAgreement(
        evaluator,
        name,
        model,
        score_field,
        len(x),
        rows.n_runs,
        corr,
        signatures=rows.signatures,
        notes=notes,
        pairs=pd.DataFrame({"item_id": space.ids[codes[both]], "score": x, "human": y}),
    )
    # binary decisions
    if binary_against is None or binary_against.majority is None:
        notes["binary"] = "no binary human field to compare decisions with"
    else:
        against = binary_against.ref.name
        g_all = binary_against.majority[codes]
        has = ~np.isnan(x_all) & ~np.isnan(g_all)
        xb, g = x_all[has], g_all[has].astype(int)
        if not has.any():
            out.binary = compare(
                np.array([]), np.array([]), against=against, score_field=score_field
            )
        elif is_binary_scores(xb) and binary_is_field:
            out.binary = compare(xb.astype(int), g, against=against, score_field=score_field)
        else:
            s01, how = rescale01(xb, scale)
            out.binary = calibrated(
                s01,
                g,
                space.dev[codes[has]],
                space.test[codes[has]],
                against=against,
                score_field=score_field,
                split_rule=f"{split_rule}; scores rescaled by {how}",
            )
        if binary_against.ref.n_ties:
            notes["binary_ties"] = (
                f"{binary_against.ref.n_ties} items with tied human labels "
                "have no majority and are left out"
            )
    # ego-centric bias on a 0-5 scale
    if not graded:
        notes["bias"] = "bias is measured on a graded 0-5 scale, not on binary decisions"
    elif scale is None:
        notes["bias"] = "the variable has no known scale to map onto 0-5"
    else:
        lo, hi = scale
        s01, how = rescale01(rows.score, scale)
        human = reference.mean[rows.item]
        keep = ~np.isnan(human)
        out.bias = bias_from_arrays(
            rows.item[keep],
            rows.run[keep],
            (s01 * 5)[keep],
            ((human - lo) / (hi - lo) * 5)[keep],
            space.generator[rows.item[keep]],
            model,
            model_families,
        )
        if how.startswith("observed"):
            notes["bias_scale"] = f"scores outside the known scale; rescaled by {how}"
    out.declared = compute_declared(out, field_type)
    return out
