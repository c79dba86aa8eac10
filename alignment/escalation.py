"""Escalation with a guarantee: Trust or Escalate (Jung, Brahman and Choi, ICLR 2025).

The judge keeps an item when its confidence is at least a threshold and sends the rest
to people. The threshold is chosen on items people labelled (the calibration set) by
fixed-sequence testing: walking a fixed grid of thresholds from 1.00 down in steps of
0.01, each threshold lam is tested for H0 "the judge disagrees with people on more than
alpha of the items it keeps". With n(lam) kept calibration items of which e(lam)
disagree, the exact p-value is the binomial tail P(Bin(n(lam), alpha) <= e(lam)); H0 is
rejected when p <= delta (equivalently: the one-sided Clopper-Pearson upper bound of the
disagreement rate at level 1 - delta is <= alpha). The walk stops at the first
threshold not rejected; the chosen threshold is the last one rejected. Then, with
probability at least 1 - delta over the calibration set, the judge agrees with people on
at least 1 - alpha of the items it keeps. A threshold keeping fewer calibration items than
could pass with no disagreement at all ((1 - alpha)^n > delta) tests nothing and is
passed over, as the authors' code passes over thresholds with fewer than 30 items (else a
sliver of very sure items at the top would stop every walk); the simulation in
``bench/escalation_validity.py`` checks the guarantee still holds. Items without a
confidence are never kept.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agreement.stats_lite import beta_ppf, binom_cdf, clopper_pearson

#: The fixed grid, highest first (fixed before the data, as the test requires).
GRID = tuple(round(1 - k / 100, 2) for k in range(101))
ALPHA = 0.1
DELTA = 0.05


def binomial_p(errors: int, n: int, alpha: float) -> float:
    """P(Bin(n, alpha) <= errors): how likely so few disagreements are if the true rate
    were alpha."""
    return binom_cdf(errors, n, alpha)


def upper_bound(errors: int, n: int, delta: float) -> float:
    """One-sided Clopper-Pearson upper bound of the disagreement rate at level 1 - delta."""
    return 1.0 if errors >= n else beta_ppf(1 - delta, errors + 1, n - errors)


def exact_interval(k: int, n: int) -> tuple[float, float]:
    """Two-sided 95% Clopper-Pearson interval of k successes out of n."""
    return clopper_pearson(k, n)


def min_items(alpha: float, delta: float) -> int:
    """The fewest kept items that can pass with no disagreement at all:
    (1 - alpha)^n <= delta."""
    return math.ceil(math.log(delta) / math.log(1 - alpha))


@dataclass(frozen=True)
class ThresholdTest:
    """One step of the walk: the highest grid threshold keeping this set of items."""

    threshold: float
    n: int
    errors: int
    p: float
    upper_bound: float
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)


@dataclass(frozen=True)
class Escalation:
    """The chosen threshold (None: keep nothing) and what it keeps on the calibration set."""

    alpha: float
    delta: float
    threshold: float | None
    n: int
    kept: int
    agree: int
    tests: tuple[ThresholdTest, ...] = field(default_factory=tuple)
    reason: str | None = None

    @property
    def coverage(self) -> float | None:
        """Share of calibration items the judge keeps."""
        return self.kept / self.n if self.n else None

    @property
    def agreement(self) -> float | None:
        """Realised agreement with people on the kept calibration items."""
        return self.agree / self.kept if self.kept else None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "alpha": self.alpha,
            "delta": self.delta,
            "threshold": self.threshold,
            "n": self.n,
            "kept": self.kept,
            "coverage": self.coverage,
            "agreement": {
                "value": self.agreement,
                "ci": list(exact_interval(self.agree, self.kept)) if self.kept else None,
                "n": self.kept,
            },
            "tests": [t.to_dict() for t in self.tests],
            "reason": self.reason,
        }


def fixed_sequence(
    confidence: np.ndarray,
    agrees: np.ndarray,
    alpha: float = ALPHA,
    delta: float = DELTA,
    grid: tuple[float, ...] = GRID,
) -> Escalation:
    """The threshold by fixed-sequence testing on calibration items (``confidence``
    NaN for an item without one; ``agrees`` 1/0)."""
    conf = np.nan_to_num(np.asarray(confidence, float), nan=-np.inf)
    ok = np.asarray(agrees, bool)
    n = len(conf)
    if n == 0:
        why = "no item has both a judge confidence source and a people's reference"
        return Escalation(alpha, delta, None, 0, 0, 0, reason=why)
    tests: list[ThresholdTest] = []
    chosen, last_n, least = None, 0, min_items(alpha, delta)
    for lam in grid:
        kept = conf >= lam - 1e-9
        k = int(kept.sum())
        if k < least:
            continue
        if k != last_n:  # a new set of kept items: test it
            e = int((~ok[kept]).sum())
            p = binomial_p(e, k, alpha)
            tests.append(ThresholdTest(lam, k, e, p, upper_bound(e, k, delta), p <= delta))
            last_n = k
        if not tests[-1].passed:
            break
        chosen = lam
    if chosen is None:
        first = tests[0] if tests else None
        why = (
            f"no threshold passes: every item goes to people (at the highest, {first.threshold:.2f}, "
            f"{first.errors} of {first.n} kept items disagree, p = {first.p:.3g} > δ = {delta})"
            if first
            else f"no threshold keeps the {least} calibration items that passing needs "
            f"(the most any keeps is {int((conf > -np.inf).sum())}): every item goes to people"
        )
        return Escalation(alpha, delta, None, n, 0, 0, tuple(tests), why)
    kept = conf >= chosen - 1e-9
    return Escalation(alpha, delta, chosen, n, int(kept.sum()), int(ok[kept].sum()), tuple(tests))


def guarantee_text(e: Escalation) -> str:
    """The guarantee in words."""
    if e.threshold is None:
        return f"No guarantee: {e.reason}."
    return (
        f"On the items where its confidence is at least {e.threshold:.2f} (it keeps "
        f"{e.kept} of {e.n} calibration items, {e.coverage:.0%}), the judge agrees with people "
        f"on at least {1 - e.alpha:.0%} of them, with probability at least {1 - e.delta:.0%} "
        "(fixed-sequence test, Jung et al. 2025)."
    )
