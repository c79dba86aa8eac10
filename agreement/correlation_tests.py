"""Pearson, Spearman and Kendall tau-b with their two-sided p-values, without scipy.stats.

Importing scipy.stats costs most of a second per process (it builds every distribution
and parses their docstrings), and a correlation's p-value needs only one tail function
each: the beta tail for Pearson (``betaincc``), Student's t for Spearman (``stdtr``) and
the normal for Kendall (``ndtr``), all in scipy.special. The functions here follow
scipy.stats 1.17's arithmetic step by step (same numpy calls on the same array layouts),
so they return the same floats, bit for bit; the tests compare them with scipy on data
with and without ties. Kendall's exact p-value (no ties and at most 33 items, or almost
no discordance) is rare and left to scipy.stats, imported only then.
"""

from __future__ import annotations

import math

import numpy as np

from agreement.concordance import ConcordancePlan

_TABLE_MAX_CELLS = 4096  # contingency tables up to this size (or 2n cells) count S directly


def pearson(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(r, p) as ``scipy.stats.pearsonr(x, y)`` for 1-D float arrays of 3+ items."""
    from scipy.special import betaincc

    const = bool(np.all(x == x[0])) or bool(np.all(y == y[0]))
    if const:
        return math.nan, math.nan
    n = np.asarray(len(x), dtype=x.dtype)
    xmean = np.mean(x, axis=-1, keepdims=True)
    ymean = np.mean(y, axis=-1, keepdims=True)
    xm, ym = x - xmean, y - ymean
    xmax = np.max(np.abs(xm), axis=-1, keepdims=True)
    ymax = np.max(np.abs(ym), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normxm = xmax * np.linalg.norm(xm / xmax, ord=2, axis=-1, keepdims=True)
        normym = ymax * np.linalg.norm(ym / ymax, ord=2, axis=-1, keepdims=True)
        r = np.vecdot(xm / normxm, ym / normym, axis=-1)
    r = np.clip(r, -1.0, 1.0)
    ab = np.asarray(n / 2 - 1, dtype=x.dtype)
    # the null distribution of r is Beta(n/2 - 1, n/2 - 1) on (-1, 1)
    p = 2 * betaincc(ab, ab, (np.abs(r) - -1) / 2)
    return float(r), float(p)


def average_ranks(v: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank (``rankdata``'s default); exact
    half-integers, so any way of computing them gives the same floats."""
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    return (upper - (counts - 1) / 2.0)[inverse.ravel()]


def spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(rho, p) as ``scipy.stats.spearmanr(x, y)`` for 1-D float arrays of 3+ items."""
    from scipy.special import stdtr

    if bool(np.all(x[0] == x)) or bool(np.all(y[0] == y)):
        return math.nan, math.nan
    if np.isnan(x).any() or np.isnan(y).any():
        return math.nan, math.nan
    # scipy ranks each column into a (2, n) buffer and reads it back as its (n, 2)
    # transpose; np.corrcoef then works on that layout, so build the same one
    ranked = np.vstack((average_ranks(x), average_ranks(y))).T
    rs = np.corrcoef(ranked, rowvar=False)
    dof = len(x) - 2
    with np.errstate(divide="ignore"):
        t = rs * np.sqrt((dof / ((rs + 1.0) * (1.0 - rs))).clip(0))
    prob = 2 * stdtr(dof, -np.abs(t))
    return float(rs[1, 0]), float(prob[1, 0])


def _tie_sums(v: np.ndarray) -> tuple[int, int, int]:
    """Pairs tied in ``v`` and the two tie terms of the variance of S (as scipy)."""
    cnt = np.unique(v, return_counts=True)[1].astype("int64", copy=False)
    cnt = cnt[cnt > 1]
    return (
        int((cnt * (cnt - 1) // 2).sum()),
        int((cnt * (cnt - 1.0) * (cnt - 2)).sum()),
        int((cnt * (cnt - 1.0) * (2 * cnt + 5)).sum()),
    )


def _contingency(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """The (x level, y level) counts, or None when the table would be large (many
    distinct values) or a value is NaN: then the merge-sort count is cheaper."""
    if np.isnan(x).any() or np.isnan(y).any():
        return None
    gx = np.unique(x, return_inverse=True)[1].ravel()
    gy = np.unique(y, return_inverse=True)[1].ravel()
    kx, ky = int(gx.max()) + 1, int(gy.max()) + 1
    if kx * ky > max(_TABLE_MAX_CELLS, 2 * len(x)):
        return None
    return np.bincount(gx * ky + gy, minlength=kx * ky).reshape(kx, ky)


def _table_s(table: np.ndarray) -> int:
    """S = n_c - n_d from a contingency table: each cell's count times the items with
    both values lower (concordant) minus those lower in x and higher in y (discordant).
    Integer sums, so S is exact and equals the merge-sort count."""
    above = np.cumsum(table, axis=0) - table  # per cell: items in earlier x rows, same y
    lower_y = np.cumsum(above, axis=1) - above  # ... and a lower y
    higher_y = above.sum(axis=1, keepdims=True) - np.cumsum(above, axis=1)
    return int((table * (lower_y - higher_y)).sum())


def kendall(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(tau-b, p) as ``scipy.stats.kendalltau(x, y)`` for 1-D float arrays of 3+ items."""
    from scipy.special import ndtr

    size = len(x)
    table = _contingency(x, y)
    if table is not None:
        s = _table_s(table)
        pairs = table[table > 0]
    else:
        s = int(ConcordancePlan.build(x, y).s(np.ones((size, 1)))[0])  # n_c - n_d, exact
        pairs = np.unique(np.column_stack((x, y)), axis=0, return_counts=True)[1]
    pairs = pairs.astype("int64", copy=False)
    ntie = int((pairs * (pairs - 1) // 2).sum())
    xtie, x0, x1 = _tie_sums(x)
    ytie, y0, y1 = _tie_sums(y)
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return math.nan, math.nan
    dis = (tot - xtie - ytie + ntie - s) // 2
    if xtie == 0 and ytie == 0 and (size <= 33 or min(dis, tot - dis) <= 1):
        from scipy import stats  # the exact null distribution: rare, so imported here

        res = stats.kendalltau(x, y)
        return float(res.statistic), float(res.pvalue)
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    tau = np.minimum(1.0, max(-1.0, tau))
    m = size * (size - 1.0)
    var = (
        (m * (2 * size + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + x0 * y0 / (9 * m * (size - 2))
    )
    z = con_minus_dis / np.sqrt(var)
    return float(tau), float(2 * ndtr(-np.abs(z)))
