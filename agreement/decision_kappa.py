"""Cohen's kappa of 0/1 decisions against 0/1 reference labels, with a bootstrap CI.

kappa = (p_o - p_e) / (1 - p_e) with p_o the share of agreement and p_e the agreement
expected from the two marginals. Every resample's confusion counts are one matrix product
with the seeded draw counts (:mod:`agreement.bootstrap`); the interval is the 95%
percentile interval.
"""

from __future__ import annotations

import numpy as np

from agreement.bootstrap import draws, percentile_ci
from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED


def kappa_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    """Cohen's kappa from (possibly weighted) confusion counts; NaN when p_e is 1.

    The four counts are arrays of one shape (a scalar, or (B,) for B bootstrap resamples)
    and the result has that shape. Wikipedia's "Cohen's kappa" example: of 50 proposals
    both readers accept 20 and reject 15, only the evaluator accepts 10 and only the
    reference 5: kappa = 0.4.

    >>> round(float(kappa_from_counts(np.array(20.0), 10.0, 5.0, 15.0)), 3)
    0.4
    >>> kappa_from_counts(np.array([20.0, 5.0]), 10.0, 5.0, np.array([15.0, 0.0])).round(3).tolist()
    [0.4, -0.5]
    """
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = (tp + tn) / n
        p_e = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
        out = (p_o - p_e) / (1 - p_e)
    return np.where(np.isclose(p_e, 1.0), np.nan, out)


def decision_kappa(
    pred: np.ndarray,
    gold: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float | None, tuple[float, float] | None, str | None]:
    """(kappa, 95% CI, reason when undefined) of paired 0/1 arrays ``pred`` and ``gold``,
    both (n,) over the same items; the CI resamples the n items.

    >>> pred = [1] * 20 + [1] * 10 + [0] * 5 + [0] * 15
    >>> gold = [1] * 20 + [0] * 10 + [1] * 5 + [0] * 15
    >>> value, ci, why = decision_kappa(np.array(pred), np.array(gold), n_resamples=0)
    >>> round(value, 3), ci, why
    (0.4, None, None)
    """
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    if len(p) == 0:
        return None, None, "no item with both a decision and a reference label"
    cells = np.column_stack([p & g, p & ~g, ~p & g, ~p & ~g]).astype(float)
    point = kappa_from_counts(*cells.sum(axis=0))
    if not np.isfinite(point):
        return None, None, "one value only in both: chance agreement is 1"
    if n_resamples <= 0:
        return float(point), None, None
    boot = kappa_from_counts(*draws(len(p), n_resamples, seed).product(cells).T)
    ci, _ = percentile_ci(boot)
    return float(point), ci, None
