"""Estimates when people labelled a probability sample drawn by active selection.

Zrnic and Candès (2024), "Active Statistical Inference": every judged item i was chosen
for human labelling with a recorded probability pi_i (independently, Poisson sampling),
xi_i says whether it was chosen and labelled. The mean over the N judged items is

    theta = 1/N sum_i [ lambda f_i + (Y_i - lambda f_i) xi_i / pi_i ],

unbiased for any lambda; lambda is tuned to the smallest empirical variance of the
summand (clipped to [0, 1]); lambda = 0 is the inverse-probability-weighted human mean.
The interval is normal with the summands' standard deviation over sqrt(N).
"""

from __future__ import annotations

import numpy as np

from estimates.intervals import Estimate, missing, normal
from estimates.ppi import MIN_LABELLED


def _parts(f: np.ndarray, y: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with summand = lambda * a + b; unlabelled items contribute f only."""
    xi = ~np.isnan(y)
    ratio = np.where(xi, 1.0 / pi, 0.0)
    return f * (1 - ratio), np.where(xi, np.nan_to_num(y) * ratio, 0.0)


def active_lambda(f: np.ndarray, y: np.ndarray, pi: np.ndarray) -> float:
    """The lambda with the smallest empirical variance of the summand, in [0, 1]."""
    a, b = _parts(f, y, pi)
    var_a = a.var()
    if var_a <= 0:
        return 0.0
    cov = np.mean((a - a.mean()) * (b - b.mean()))
    return float(np.clip(-cov / var_a, 0.0, 1.0))


def active_mean(
    f: np.ndarray, y: np.ndarray, pi: np.ndarray, *, lam: float | None = None, method: str = "ppi"
) -> Estimate:
    """The active-inference mean over all judged items: ``f`` judge scores, ``y`` the
    human value (NaN where nobody labelled it), ``pi`` the recorded selection probability."""
    f, y, pi = (np.asarray(v, float) for v in (f, y, pi))
    n = int((~np.isnan(y)).sum())
    if n < MIN_LABELLED:
        return missing(method, f"needs at least {MIN_LABELLED} selected, labelled items", n=n)
    if np.any((pi <= 0) | (pi > 1) | np.isnan(pi)):
        return missing(method, "selection probabilities must be in (0, 1]", n=n)
    if lam is None:
        lam = active_lambda(f, y, pi)
    a, b = _parts(f, y, pi)
    z = lam * a + b
    extra = {"lambda": float(lam), "n": n, "n_unlabelled": len(f) - n, "weighted": True}
    return normal(method, z.mean(), z.std() / np.sqrt(len(z)), extra=extra)
