"""Recalibration of a judge's scores onto the human scale, fitted with cross-fitting.

- Platt scaling (Platt 1999): P(human yes | s) = 1 / (1 + exp(-(a + b s))), a and b by
  maximum likelihood (Newton's method) against Platt's smoothed targets: (N+ + 1) /
  (N+ + 2) for a yes and 1 / (N- + 2) for a no, N+ and N- the counts of each among the
  fitted items (scikit-learn's ``method="sigmoid"`` fits the same); binary fields only.
- Isotonic regression: the non-decreasing function of s closest in squared error to the
  human values. Items with one score are pooled first (their mean, weighted by their
  count), then pool adjacent violators runs on the distinct scores
  (``scipy.optimize.isotonic_regression``), as scikit-learn's ``IsotonicRegression``;
  so the map does not depend on the rows' order. Interpolated linearly between fitted
  scores and held flat outside them; for any scale.

Cross-fitting (K folds): every item's calibrated value comes from a map fitted on the
other folds, so the calibrated figures are not measured on the data that fitted them.
:func:`fit_map` gives the map fitted on all items, for another module to apply (e.g.
judge-assisted estimates of a human mean).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import isotonic_regression

METHODS = ("platt", "isotonic")
DEFAULT_FOLDS = 5
Map = Callable[[np.ndarray], np.ndarray]


def platt_targets(y: np.ndarray) -> np.ndarray:
    """Platt's smoothed targets of 0/1 labels: (N+ + 1) / (N+ + 2) and 1 / (N- + 2)."""
    pos = y > 0
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return np.where(pos, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))


def _platt(s: np.ndarray, y: np.ndarray, steps: int = 50) -> Map:
    y = platt_targets(y)
    x = np.column_stack([np.ones_like(s), s])
    w = np.zeros(2)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y)
        hess = x.T @ (x * (p * (1 - p))[:, None]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    a, b = float(w[0]), float(w[1])
    return lambda t: 1 / (1 + np.exp(-(a + b * np.asarray(t, float))))


def _isotonic(s: np.ndarray, y: np.ndarray) -> Map:
    ux, which, counts = np.unique(s, return_inverse=True, return_counts=True)
    means = np.bincount(which, weights=y, minlength=len(ux)) / counts
    uy = isotonic_regression(means, weights=counts.astype(float)).x
    if len(ux) == 1:
        return lambda t: np.full(np.shape(t), uy[0], dtype=float)
    return lambda t: np.interp(np.asarray(t, float), ux, uy)


def fit_map(scores: np.ndarray, human: np.ndarray, method: str) -> Map:
    """The map from judge scores to the human scale fitted on all the given items
    (``human`` 0/1 for Platt). ValueError for an unknown method or too few items."""
    s, y = np.asarray(scores, float), np.asarray(human, float)
    if method not in METHODS:
        raise ValueError(f"unknown recalibration {method!r} (choose from {', '.join(METHODS)})")
    if len(s) < 2:
        raise ValueError("recalibration needs at least two items")
    if method == "platt":
        if not np.isin(y, (0.0, 1.0)).all():
            raise ValueError("Platt scaling needs 0/1 human values (a binary field)")
        return _platt(s, y)
    return _isotonic(s, y)


def cross_fit(
    scores: np.ndarray, human: np.ndarray, method: str, k: int = DEFAULT_FOLDS, seed: int = 0
) -> np.ndarray:
    """Each item's calibrated score from a map fitted on the other K-1 folds (items
    shuffled with ``seed``, then dealt into K folds)."""
    s, y = np.asarray(scores, float), np.asarray(human, float)
    n = len(s)
    k = max(2, min(k, n))
    folds = np.random.default_rng(seed).permutation(n) % k
    out = np.empty(n)
    for f in range(k):
        test = folds == f
        out[test] = fit_map(s[~test], y[~test], method)(s[test])
    return out


def _figures(x: np.ndarray, y: np.ndarray, binary: bool) -> dict[str, float]:
    if binary:
        return {"brier": float(np.mean((x - y) ** 2))}
    return {
        "mae": float(np.mean(np.abs(x - y))),
        "rmse": float(np.sqrt(np.mean((x - y) ** 2))),
    }


def recalibrated(
    scores: np.ndarray,
    human: np.ndarray,
    *,
    binary: bool,
    k: int = DEFAULT_FOLDS,
    seed: int = 0,
) -> dict[str, Any]:
    """Raw and cross-fitted calibrated figures side by side: Brier (binary field, scores
    as probabilities) or MAE / RMSE on the human scale, for each method that applies."""
    s, y = np.asarray(scores, float), np.asarray(human, float)
    if len(s) < 2 * max(2, k):
        return {"n": len(s), "reason": f"recalibration needs at least {2 * max(2, k)} items"}
    out: dict[str, Any] = {"n": len(s), "k": k, "raw": _figures(s, y, binary)}
    for method in METHODS if binary else ("isotonic",):
        out[method] = _figures(cross_fit(s, y, method, k, seed), y, binary)
    return out
