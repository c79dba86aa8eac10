"""Cohen's kappa of 0/1 decisions against 0/1 reference labels, with a bootstrap CI.

kappa = (p_o - p_e) / (1 - p_e) with p_o the share of agreement and p_e the agreement
expected from the two marginals. Every resample's confusion counts are one matrix product
with the seeded draw counts (:mod:`agreement.bootstrap`); the interval is the 95%
percentile interval.
"""

from __future__ import annotations

import numpy as np

from agreement.bootstrap import draw_counts, percentile_ci
from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED


def kappa_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    """Cohen's kappa from (possibly weighted) confusion counts; NaN when p_e is 1."""
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
    """(kappa, 95% CI, reason when undefined) of paired 0/1 arrays."""
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    if len(p) == 0:
        return None, None, "no item with both a decision and a reference label"
    cells = np.column_stack([p & g, p & ~g, ~p & g, ~p & ~g]).astype(float)
    point = kappa_from_counts(*cells.sum(axis=0))
    if not np.isfinite(point):
        return None, None, "one value only in both: chance agreement is 1"
    if n_resamples <= 0:
        return float(point), None, None
    boot = kappa_from_counts(*(draw_counts(len(p), n_resamples, seed) @ cells).T)
    ci, _ = percentile_ci(boot)
    return float(point), ci, None
