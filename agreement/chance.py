"""Chance-corrected agreement over raters with missing ratings: Gwet's AC1/AC2 and the
missing-data form of Fleiss' kappa, for many bootstrap resamples at once.

Notation of Gwet (Handbook of Inter-Rater Reliability, 4th ed., ch. 2-3), as irrCAC
computes it: item i has r_i ratings, r_ik of them in category k, and w_kl are agreement
weights (identity: AC1 and unweighted kappa; linear / quadratic over the category values:
AC2). With r*_ik = sum_l w_kl r_il,

- p_a = mean over items with r_i >= 2 of sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1));
- pi_k = mean over items with r_i >= 1 of r_ik / r_i;
- Gwet: p_e = (sum_kl w_kl) / (q (q - 1)) * sum_k pi_k (1 - pi_k);
- Fleiss (Gwet's missing-data form): p_e = sum_kl w_kl pi_k pi_l;

and the coefficient is (p_a - p_e) / (1 - p_e). Every item with a rating counts: no item
is left out for having more or fewer ratings than the others.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agreement.bootstrap import Draws, weighted_sums
from agreement.results import Stat

WEIGHTS = ("identity", "linear", "quadratic")


def agreement_weights(values: np.ndarray, weights: str) -> np.ndarray:
    """The (q, q) agreement weights over the category ``values`` (irrCAC's definitions:
    linear 1 - |x_k - x_l| / (x_max - x_min), quadratic 1 - ((x_k - x_l) / range)^2)."""
    v = np.asarray(values, dtype=float)
    if weights == "identity":
        return np.eye(len(v))
    span = v.max() - v.min() if len(v) else 0.0
    if span == 0:
        return np.eye(len(v))
    diff = np.abs(v[:, None] - v[None, :]) / span
    if weights == "linear":
        return 1 - diff
    if weights == "quadratic":
        return 1 - diff**2
    raise ValueError(f"unknown weights {weights!r}")


def parts_many(
    counts: np.ndarray, w_cats: Sequence[np.ndarray], draws: np.ndarray | Draws | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(p_a, pi) for each row of ``draws`` (B, n items, or :class:`Draws`) and each weight matrix of
    ``w_cats``; one row of ones without draws. The per-item terms of every weighting are
    columns of one product, so the draws are read once however many coefficients use them."""
    c = np.asarray(counts, dtype=float)
    r = c.sum(axis=1)
    pairable = (r >= 2).astype(float)
    rated = (r >= 1).astype(float)
    # per-item terms padded with zeros, so every resample is one product with the full
    # draw matrix (no column selection: that would copy B x n floats per call)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(r[:, None] >= 1, c / r[:, None], 0.0)
        pa_i = [
            np.where(r >= 2, (c * (c @ w.T - 1)).sum(axis=1) / (r * (r - 1)), 0.0) for w in w_cats
        ]
    d = np.ones((1, len(c))) if draws is None else draws
    k = len(pa_i)
    sums = weighted_sums(d, np.column_stack([*pa_i, pairable, rated, share]))
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = sums[:, k + 2 :] / sums[:, k + 1 : k + 2]
        return [(sums[:, i] / sums[:, k], pi) for i in range(k)]


def gwet_from_parts(p_a: np.ndarray, pi: np.ndarray, w_cat: np.ndarray) -> np.ndarray:
    """Gwet's AC1 / AC2 from (p_a, pi) of :func:`parts_many` and the weights ``w_cat``."""
    q = w_cat.shape[0]
    p_e = w_cat.sum() * (pi * (1 - pi)).sum(axis=1) / (q * (q - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (p_a - p_e) / (1 - p_e)


def fleiss_missing_from_parts(p_a: np.ndarray, pi: np.ndarray, w_cat: np.ndarray) -> np.ndarray:
    """Missing-data Fleiss' kappa from (p_a, pi) of :func:`parts_many` and ``w_cat``."""
    p_e = np.einsum("bk,kl,bl->b", pi, w_cat, pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (p_a - p_e) / (1 - p_e)


def gwet_from_counts(
    counts: np.ndarray, w_cat: np.ndarray, draws: np.ndarray | Draws | None = None
) -> np.ndarray:
    """Gwet's AC1 (identity weights) / AC2 of an (items, q) count table: shape (B,), one
    value per row of the (B, items) resample counts ``draws`` (one value without them);
    ``w_cat`` is the (q, q) weight matrix. Gwet's (2008) example (see ``gwet_ac1``):

    >>> from agreement.ratings import Ratings
    >>> a = [1] * 118 + [1] * 5 + [0] * 2
    >>> b = [1] * 118 + [0] * 5 + [1] * 2
    >>> r = Ratings.from_matrix([a, b], numeric=False)
    >>> counts = r.counts[r.m >= 1]
    >>> gwet_from_counts(counts, agreement_weights(np.arange(2), "identity")).round(2).tolist()
    [0.94]
    """
    return gwet_from_parts(*parts_many(counts, [w_cat], draws)[0], w_cat)


def fleiss_missing_from_counts(
    counts: np.ndarray, w_cat: np.ndarray, draws: np.ndarray | Draws | None = None
) -> np.ndarray:
    """Fleiss' kappa in Gwet's missing-data form of an (items, q) count table: shape (B,),
    one value per row of the (B, items) resample counts ``draws``."""
    return fleiss_missing_from_parts(*parts_many(counts, [w_cat], draws)[0], w_cat)


def undefined_reason(counts: np.ndarray, n_raters: int, q: int) -> str | None:
    """Why a chance-corrected coefficient cannot be computed on ``counts``, or None."""
    m = counts.sum(axis=1)
    if n_raters < 2:
        return "only one rater"
    if not (m >= 2).any():
        return "no item has two or more ratings"
    if q < 2:
        return "only one category on the scale"
    return None


def point(values: np.ndarray, n: int, reason: str) -> Stat:
    """A statistic from a one-row result of the functions above."""
    return Stat.of(float(values[0]), n, reason)
