"""Typed results of the agreement engine.

Every statistic is a value plus the number of units it rests on; an undefined statistic
has ``value=None`` and a ``reason`` saying why (never NaN, never a silent 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


def clean(value: float | None) -> float | None:
    """A finite float, or None for None / NaN / inf."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Stat:
    """One statistic: its value (None when undefined), n, the reason and an optional CI."""

    value: float | None
    n: int = 0
    reason: str | None = None
    ci: tuple[float, float] | None = None
    #: further JSON entries of the statistic (e.g. the per-pair values behind a mean)
    extra: dict[str, Any] | None = field(default=None, compare=False)
    #: two-sided p-value, for the measures that test something (correlations, Fisher)
    p: float | None = None
    #: reasons of undefined entries of ``extra`` (e.g. ``cohen_kappa_pairs.a|b``)
    notes: dict[str, str] | None = field(default=None, compare=False)

    @classmethod
    def undefined(cls, reason: str, n: int = 0) -> Stat:
        """A statistic that has no value here, with the reason."""
        return cls(None, n, reason)

    @classmethod
    def of(cls, value: float | None, n: int, reason: str = "undefined") -> Stat:
        """``value`` if finite, else undefined with ``reason``."""
        v = clean(value)
        return cls(v, n, None if v is not None else reason)


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient with its two-sided p-value and bootstrap 95% CI."""

    r: float | None
    p: float | None
    ci: tuple[float, float] | None
    n: int
    reason: str | None = None
    ci_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: r, p, ci (and reason keys when something is undefined)."""
        out: dict[str, Any] = {
            "r": self.r,
            "p": self.p,
            "ci": list(self.ci) if self.ci else None,
            "n": self.n,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.ci_reason and self.r is not None:
            out["ci_reason"] = self.ci_reason
        return out


@dataclass(frozen=True)
class BinaryComparison:
    """Binary decisions of an evaluator against reference labels (positive class = 1)."""

    threshold: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    kappa: float | None
    n: int
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    split: str = "all"
    against: str | None = None
    score_field: str | None = None
    n_dev: int | None = None
    dev_f1: float | None = None
    reason: str | None = None
    notes: dict[str, str] = field(default_factory=dict)
    #: degenerate results (e.g. ``small_test``, ``threshold_at_edge``) and what they mean
    flags: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        out: dict[str, Any] = {
            "threshold": self.threshold,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "kappa": self.kappa,
            "n": self.n,
            "confusion": {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn},
            "split": self.split,
            "against": self.against,
            "score_field": self.score_field,
        }
        if self.n_dev is not None:
            out["n_dev"] = self.n_dev
            out["dev_f1"] = self.dev_f1
        if self.reason:
            out["reason"] = self.reason
        if self.notes:
            out["reasons"] = dict(self.notes)
        out["flags"] = dict(self.flags)
        return out


@dataclass(frozen=True)
class Bias:
    """FinGrAct ego-centric bias counts on a 0-5 scale (means over repeated runs)."""

    over: float | None
    under: float | None
    over_own: float | None
    n_own: int
    over_other: float | None
    n_other: int
    fisher_p: float | None
    n: int
    n_runs: int
    under_own: float | None = None
    under_other: float | None = None
    over_by_run: tuple[int, ...] = ()
    fisher_table: tuple[tuple[int, int], tuple[int, int]] | None = None
    by_generator: dict[str, dict[str, float]] = field(default_factory=dict)
    reason: str | None = None
    fisher_reason: str | None = None
    #: how a 1-5 judge's grades were put on the field's scale (G-Eval, Prometheus)
    scale_mapping: str | None = None
    #: "exact" (generator == judge model) or "family" (``model_families``); None: no own item
    own_match: str | None = None
    own_generators: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; the own-model counts (FinGrAct's headline) come first."""
        out: dict[str, Any] = {
            "over_own": self.over_own,
            "under_own": self.under_own,
            "n_own": self.n_own,
            "own_match": self.own_match,
            "own_generators": list(self.own_generators),
            "over": self.over,
            "under": self.under,
            "over_other": self.over_other,
            "n_other": self.n_other,
            "fisher_p": self.fisher_p,
            "n": self.n,
            "n_runs": self.n_runs,
            "under_other": self.under_other,
            "over_by_run": list(self.over_by_run),
            "fisher_table": [list(r) for r in self.fisher_table] if self.fisher_table else None,
            "by_generator": self.by_generator,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.fisher_reason:
            out["fisher_reason"] = self.fisher_reason
        if self.scale_mapping:
            out["scale_mapping"] = self.scale_mapping
        return out
