"""Correlation of an evaluator's scores with the human reference, with bootstrap CIs.

- Pearson's r: covariance over the product of standard deviations.
- Spearman's rho: Pearson's r of the average ranks (ties get the mean rank).
- Kendall's tau-b: (n_c - n_d) / sqrt((n_0 - n_x)(n_0 - n_y)), n_c / n_d the concordant /
  discordant pairs, n_0 = n(n-1)/2 and n_x, n_y the pairs tied in x, in y.

Point estimates and two-sided p-values are scipy.stats' (pearsonr, spearmanr, kendalltau
with its default method), computed without importing it (:mod:`agreement.correlation_tests`). The 95% intervals are percentile intervals of the
seeded item bootstrap; Spearman and Kendall are computed for every resample at once.
With few distinct values (human means, LLM-judge scores) they come from a (resample x
y-level x x-level) contingency table: ranks are cumulative level weights, and the
concordance sum uses 2-D cumulative sums, O(B * levels). With many distinct values
ranks are gathered per item and the concordance sum is a merge-sort count vectorised
over resamples (:mod:`agreement.concordance`), O(B n log n). Resample weights are
integers, so every sum is exact and both ways give the same values; both are checked
against scipy on resampled data with ties and with continuous values.
"""

from __future__ import annotations

import warnings

import numpy as np

from agreement import correlation_tests
from agreement.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Draws,
    draws,
    group_onehot,
    percentile_ci,
    weighted_sums,
)
from agreement.concordance import ConcordancePlan
from agreement.results import Correlation

#: Tables of up to this many cells (or 2n) per resample; beyond, the merge-sort count.
TABLE_MAX_CELLS = 4096
CHUNK_CELLS = 8_000_000
MERGE_CHUNK = 32  # resamples per pass of the merge-sort count (keeps arrays in cache)


def _levels(v: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, inv = np.unique(v, return_inverse=True)
    return inv.ravel(), len(uniq)


def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray | Draws) -> np.ndarray:
    """Pearson's r (B,) of ``x`` and ``y`` (n,) for each weight row of ``w`` (B, n, or
    :class:`Draws`: how often each item is drawn). Anscombe's (1973) first data set has r = 0.816:

    >>> x = np.array([10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5], dtype=float)
    >>> y = np.array([8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68])
    >>> weighted_pearson(x, y, np.ones((1, 11))).round(3).tolist()
    [0.816]
    """
    x = x - x.mean()
    y = y - y.mean()
    # the weight totals ride along as a column of ones: one pass over ``w``, not two
    moments = weighted_sums(w, np.column_stack([np.ones_like(x), x, y, x * x, y * y, x * y]))
    return _pearson_from_moments(moments.T, np.abs(x).max(), np.abs(y).max())


def tables_pearson(t: np.ndarray, x_levels: np.ndarray, y_levels: np.ndarray) -> np.ndarray:
    """Pearson's r of each (y-level, x-level) weight table in ``t`` (B, Ly, Lx), the
    levels' values centred as :func:`weighted_pearson` centres the items' (on the
    unweighted item mean): the same moments, summed by level instead of by item."""
    wx, wy = t.sum(axis=1), t.sum(axis=2)
    moments = np.stack(
        [
            wx.sum(axis=1),
            wx @ x_levels,
            wy @ y_levels,
            wx @ x_levels**2,
            wy @ y_levels**2,
            np.einsum("bga,a,g->b", t, x_levels, y_levels),
        ]
    )
    return _pearson_from_moments(moments, np.abs(x_levels).max(), np.abs(y_levels).max())


def _pearson_from_moments(moments: np.ndarray, x_max: float, y_max: float) -> np.ndarray:
    """r from the weighted moments (n, sx, sy, sxx, syy, sxy), each (B,), of values centred
    on their unweighted mean whose largest absolute values are ``x_max`` and ``y_max``."""
    n, sx, sy, sxx, syy, sxy = moments
    cov = n * sxy - sx * sy
    var = (n * sxx - sx**2) * (n * syy - sy**2)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cov / np.sqrt(var)
    scale = max(x_max, 1e-300) ** 2 * max(y_max, 1e-300) ** 2
    r[var <= 1e-12 * np.maximum(n, 1) ** 2 * scale] = np.nan  # no variation in the resample
    return r


def tables_spearman(t: np.ndarray) -> np.ndarray:
    """Spearman's rho of each (y-level, x-level) weight table in ``t`` (B, Ly, Lx)."""
    wx, wy = t.sum(axis=1), t.sum(axis=2)
    rx, ry = _level_ranks(wx), _level_ranks(wy)
    return _spearman_from_sums(np.einsum("bga,ba,bg->b", t, rx, ry), wx, rx, wy, ry)


def _level_ranks(wl: np.ndarray) -> np.ndarray:
    """Average rank of each level (B, L) given the weight of each level (ties: mean rank)."""
    return np.cumsum(wl, axis=1) - (wl - 1) / 2


def _spearman_from_sums(
    sum_xy: np.ndarray, wx: np.ndarray, rx: np.ndarray, wy: np.ndarray, ry: np.ndarray
) -> np.ndarray:
    """Rho from sum_i w_i rx_i ry_i and the level weights and ranks of x and y.

    With integer weights every sum here is exact (multiples of 1/4 below 2**51 for
    n < 100,000 items), so the result does not depend on how the sums were formed.
    """
    n = wx.sum(axis=1)
    mean = (n + 1) / 2
    sxy = sum_xy / n - mean**2
    sxx = (wx * rx**2).sum(axis=1) / n - mean**2
    syy = (wy * ry**2).sum(axis=1) / n - mean**2
    with np.errstate(divide="ignore", invalid="ignore"):
        out = sxy / np.sqrt(sxx * syy)
    out[(sxx <= 1e-9) | (syy <= 1e-9)] = np.nan
    return out


def tables_kendall_tau_b(t: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each weight table in ``t`` (B, Ly, Lx), levels in ascending order.

    Weights are item multiplicities, so copies of one item are tied with each other in
    both variables, exactly as in the expanded resample.
    """
    above = np.cumsum(t[:, ::-1], axis=1)[:, ::-1] - t  # weight with a strictly larger y
    right = np.cumsum(above[:, :, ::-1], axis=2)[:, :, ::-1] - above  # larger x too
    left = np.cumsum(above, axis=2) - above  # smaller x
    s = (t * (right - left)).sum(axis=(1, 2))
    return _tau_b_from_s(s, t.sum(axis=1), t.sum(axis=2))


def _tau_b_from_s(s: np.ndarray, wx: np.ndarray, wy: np.ndarray) -> np.ndarray:
    """Tau-b from the concordance sum S = n_c - n_d and the level weights of x and y."""
    n = wx.sum(axis=1)
    n0 = n * (n - 1) / 2
    tx = (wx * (wx - 1) / 2).sum(axis=1)
    ty = (wy * (wy - 1) / 2).sum(axis=1)
    denom = (n0 - tx) * (n0 - ty)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = s / np.sqrt(denom)
    out[denom <= 0] = np.nan
    return out


def rank_bootstrap(
    x: np.ndarray, y: np.ndarray, w: np.ndarray | Draws, w_t: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Spearman and Kendall tau-b for every resample (weight row of ``w``).

    Few distinct values: from (resample x level x level) tables. Many: ranks per level
    and a merge-sort concordance count (:mod:`agreement.concordance`), O(B n log n). Both
    are exact for integer weights and give the same values (checked against scipy).
    """
    _, rho, tau = resampled_correlations(x, y, w, w_t, pearson=False)
    return rho, tau


def resampled_correlations(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | Draws,
    w_t: np.ndarray | None = None,
    *,
    pearson: bool = True,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Pearson (None unless ``pearson``), Spearman and Kendall tau-b for every resample
    (weight row of the (B, n) ``w``, or :class:`Draws`; ``w_t``: ``w`` transposed,
    C-contiguous, when the caller has it).

    With few distinct values all three come from one (resample x level x level) table,
    so the draw counts are read once; otherwise Pearson is one product with them
    (:func:`weighted_pearson`) and the ranks go through the merge-sort count. Either way
    the counts are read a chunk of resamples at a time, and every array here is a
    chunk's (rows x levels, rows x items), not B x n.
    """
    if isinstance(w, Draws):
        d = w
    elif w_t is not None:
        d = Draws(len(x), [np.ascontiguousarray(w_t, dtype=np.float64)])
    else:
        d = Draws.from_matrix(w)
    gx, kx = _levels(x)
    gy, ky = _levels(y)
    b = len(d)
    rho, tau = np.empty(b), np.empty(b)
    r = np.empty(b) if pearson else None
    if kx * ky <= max(TABLE_MAX_CELLS, 2 * len(x)):
        x_levels, y_levels = np.unique(x) - x.mean(), np.unique(y) - y.mean()
        step = max(1, CHUNK_CELLS // (kx * ky))
        for part, sums in d.chunk_group_sums(gy * kx + gx, ky * kx):
            t = sums.reshape(-1, ky, kx)
            for start in range(0, len(t), step):
                piece = t[start : start + step]
                out = slice(part.start + start, part.start + start + len(piece))
                rho[out] = tables_spearman(piece)
                tau[out] = tables_kendall_tau_b(piece)
                if r is not None:
                    r[out] = tables_pearson(piece, x_levels, y_levels)
        return r, rho, tau
    onehot_x, onehot_y = group_onehot(gx, kx), group_onehot(gy, ky)
    plan = ConcordancePlan.build(x, y)
    for part, chunk_t in d.chunks_t():
        if r is not None:
            r[part] = weighted_pearson(x, y, chunk_t.T)
        wx = np.ascontiguousarray((onehot_x @ chunk_t).T)
        wy = np.ascontiguousarray((onehot_y @ chunk_t).T)
        rx, ry = _level_ranks(wx), _level_ranks(wy)
        for start in range(0, chunk_t.shape[1], MERGE_CHUNK):
            sub = slice(start, start + MERGE_CHUNK)
            wp = np.ascontiguousarray(chunk_t[:, sub])
            out = slice(part.start + start, part.start + start + wp.shape[1])
            sum_xy = (wp * rx[sub].T[gx] * ry[sub].T[gy]).sum(axis=0)
            rho[out] = _spearman_from_sums(sum_xy, wx[sub], rx[sub], wy[sub], ry[sub])
            tau[out] = _tau_b_from_s(plan.s(wp), wx[sub], wy[sub])
    return r, rho, tau


def correlations(
    scores: np.ndarray,
    reference: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Correlation]:
    """Pearson, Spearman and Kendall tau-b of ``scores`` vs ``reference`` (paired arrays)."""
    x = np.asarray(scores, dtype=float)
    y = np.asarray(reference, dtype=float)
    n = len(x)
    reason = None
    if n < 3:
        reason = f"fewer than 3 items with both values (n={n})"
    elif np.ptp(x) == 0:
        reason = "zero variance in the evaluator's scores"
    elif np.ptp(y) == 0:
        reason = "zero variance in the human values"
    if reason:
        none = Correlation(None, None, None, n, reason)
        return {"pearson": none, "spearman": none, "kendall": none}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = {
            "pearson": correlation_tests.pearson(x, y),
            "spearman": correlation_tests.spearman(x, y),
            "kendall": correlation_tests.kendall(x, y),
        }
    boots: dict[str, np.ndarray] = {}
    if n_resamples > 0:
        r, boots["spearman"], boots["kendall"] = resampled_correlations(
            x, y, draws(n, n_resamples, seed)
        )
        if r is not None:
            boots["pearson"] = r
    out = {}
    for name, (r, p) in points.items():
        ci, ci_reason = percentile_ci(boots[name]) if name in boots else (None, "no resamples")
        out[name] = Correlation(
            r if np.isfinite(r) else None,
            p if np.isfinite(p) else None,
            ci,
            n,
            None if np.isfinite(r) else "undefined",
            ci_reason,
        )
    return out
