"""Does evaluator A agree with people better than evaluator B on the same items?

A paired bootstrap: every resample draws the same items for both evaluators, so the
difference A - B of their agreement with the human reference (Cohen's kappa of 0/1
decisions, Spearman's rho or Pearson's r) keeps the items' shared difficulty out of its
spread. The 95 % interval is the percentile interval of the resampled differences; the
two-sided p is twice the smaller share of resampled differences on either side of 0 (the
smallest level at which the percentile interval would exclude 0), at least 1 / B.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agreement.bootstrap import Draws, draws, percentile_ci
from agreement.correlation import rank_bootstrap, weighted_pearson
from agreement.decision_kappa import kappa_from_counts
from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

MIN_ITEMS = 5


@dataclass(frozen=True)
class PairedDifference:
    """A's figure, B's figure, A - B with its paired-bootstrap 95 % CI and p."""

    statistic: str
    n: int
    value_a: float | None
    value_b: float | None
    difference: float | None
    ci: tuple[float, float] | None
    p: float | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        out = asdict(self)
        out["ci"] = list(self.ci) if self.ci else None
        return out


def _kappa(x: np.ndarray, ref: np.ndarray, w: Draws) -> np.ndarray:
    p, g = x >= 0.5, ref >= 0.5
    cells = np.column_stack([p & g, p & ~g, ~p & g, ~p & ~g]).astype(float)
    return kappa_from_counts(*w.product(cells).T)


def _pearson(x: np.ndarray, ref: np.ndarray, w: Draws) -> np.ndarray:
    return weighted_pearson(x, ref, w)


def _spearman(x: np.ndarray, ref: np.ndarray, w: Draws) -> np.ndarray:
    return rank_bootstrap(x, ref, w)[0]


STATISTICS: dict[str, Callable[..., np.ndarray]] = {
    "kappa": _kappa,
    "pearson": _pearson,
    "spearman": _spearman,
}


def paired_difference(
    statistic: str,
    a: np.ndarray,
    b: np.ndarray,
    reference: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedDifference:
    """A - B of ``statistic`` against ``reference``: ``a``, ``b`` and ``reference`` are
    (n,) over the same items; the paired bootstrap draws the n items once for both."""
    fn = STATISTICS[statistic]
    a, b, ref = (np.asarray(v, float) for v in (a, b, reference))
    n = len(ref)
    if n < MIN_ITEMS:
        reason = f"fewer than {MIN_ITEMS} items scored by both with a human reference (n={n})"
        return PairedDifference(statistic, n, None, None, None, None, None, reason)
    one = Draws(n, [np.ones((n, 1))])
    va, vb = float(fn(a, ref, one)[0]), float(fn(b, ref, one)[0])
    if not (np.isfinite(va) and np.isfinite(vb)):
        reason = f"{statistic} undefined for one of them (no variation)"
        return PairedDifference(statistic, n, _finite(va), _finite(vb), None, None, None, reason)
    if n_resamples <= 0:
        return PairedDifference(statistic, n, va, vb, va - vb, None, None, "no resamples")
    w = draws(n, n_resamples, seed)
    diffs = fn(a, ref, w) - fn(b, ref, w)
    ci, why = percentile_ci(diffs)
    finite = diffs[np.isfinite(diffs)]
    p = None
    if ci is not None and len(finite):
        tail = min(np.mean(finite <= 0), np.mean(finite >= 0))
        p = float(min(1.0, max(2 * tail, 1 / len(finite))))
    return PairedDifference(statistic, n, va, vb, va - vb, ci, p, why)


def _finite(x: float) -> float | None:
    return x if np.isfinite(x) else None
