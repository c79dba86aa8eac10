"""Agreement among humans on one variable: every declared statistic among people."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.measure_result import PEOPLE, MeasureResult, write_block
from agreement.measures import Measure
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.stat_context import MIN_PAIR_OVERLAP, StatContext
from agreement.statistics import statistics
from common.rows import MeasureRow

__all__ = ["MIN_PAIR_OVERLAP", "VariableAgreement", "variable_agreement"]


@dataclass
class VariableAgreement:
    """Agreement among annotators on one variable (a human field or a derived score):
    one :class:`MeasureResult` per declared statistic, in declaration order."""

    name: str
    type: str
    level: str
    levels: tuple[str, ...]
    ratings: Ratings
    unit: str = "item"
    results: dict[str, MeasureResult] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def n_items(self) -> int:
        """Units with at least one rating."""
        return int((self.ratings.m > 0).sum())

    def stat(self, key: str, level: str | None = None) -> Stat | None:
        """The result of statistic ``key`` (of ``level`` for alpha); None if not computed."""
        res = self.results.get(key)
        return res.stat(level) if res else None

    def by_level(self, key: str) -> dict[str, Stat]:
        """Level -> result of a per-level statistic (alpha)."""
        res = self.results.get(key)
        return res.by_level() if res else {}

    def rows(self) -> tuple[MeasureRow, ...]:
        """Every computed statistic of the variable as rows, in declaration order."""
        return tuple(r for res in self.results.values() for r in res.rows(PEOPLE, self.name))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, written from :meth:`rows`: the variable's counts, then each
        statistic's keys in its declared layout (by ``json_rank``), then the reasons."""
        r = self.ratings
        out: dict[str, Any] = {
            "type": self.type,
            "level": self.level,
            "unit": self.unit,
            "n_items": self.n_items,
            "n_annotators": len(r.annotators),
            "n_ratings": r.n_ratings,
            "n_pairable": int(r.pairable.sum()),
        }
        by_key: dict[str, list[MeasureRow]] = {}
        for row in self.rows():
            by_key.setdefault(row.measure, []).append(row)
        reasons: dict[str, str] = {}
        for res in sorted(self.results.values(), key=lambda x: x.rank):
            write_block(out, reasons, res, tuple(by_key.get(res.key, ())))
        reasons.update(self.notes)
        out["reasons"] = reasons
        return out


def variable_agreement(
    name: str,
    ratings: Ratings,
    *,
    type_: str,
    levels: tuple[str, ...],
    level: str,
    categorical: bool,
    ordinal: bool = False,
    structured: bool = False,
    unit: str = "item",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    min_pair_overlap: int = MIN_PAIR_OVERLAP,
    keep: Callable[[Measure], bool] | None = None,
    all_pairs: bool = False,
) -> VariableAgreement:
    """Every declared statistic among people that ``keep`` keeps (all when None).

    ``categorical``: Fleiss and Cohen make sense (not for continuous scores);
    ``ordinal``: add linear and quadratic weighted Cohen pairs; Cohen pairs sharing
    fewer than ``min_pair_overlap`` items stay out of the pair mean; ``all_pairs`` lists
    every pair however many annotators (else a crowd's pairs are summarised). A statistic that
    does not apply to ``type_`` (and is not computed ``always``) is undefined with the
    reason its declaration gives when it is ``listed``; for a ``structured`` answer (a
    question type's own shape) only the statistics that apply are computed or shown.
    """
    out = VariableAgreement(name, type_, level, levels, ratings, unit=unit)
    ctx = StatContext(
        ratings,
        type_,
        n_resamples,
        seed,
        levels=levels,
        categorical=categorical,
        ordinal=ordinal,
        min_pair_overlap=min_pair_overlap,
        all_pairs=all_pairs,
    )
    for stat in statistics():
        if stat.compute is None or (keep is not None and not keep(stat)):
            continue
        if stat.applies(type_) or (stat.always and not structured):
            result = stat.compute(ctx)
        elif structured or not stat.listed:
            continue
        else:
            why = Stat.undefined(stat.reason_not_applicable())
            result = {lv: why for lv in levels} if stat.per_level else why
        out.results[stat.key] = MeasureResult.of(stat, result)
    return out
