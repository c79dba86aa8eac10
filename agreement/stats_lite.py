"""The few tests and distribution functions of scipy.stats the alignment view needs, from
scipy.special and scipy.optimize, as scipy.stats 1.17 computes them.

Importing scipy.stats costs about half a second of CPU per process (it builds every
distribution and parses their docstrings), and on the Alignment page it was the largest
import of the first visit. Each function here follows scipy.stats' arithmetic step by step
(the same numpy calls, the same scipy.special or Boost function underneath, the same
root finder), so it returns the same floats, bit for bit; ``tests/test_stats_lite.py``
compares them with scipy.stats, as ``agreement.correlation_tests`` does for the
correlations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def ttest_greater_p(a: np.ndarray, popmean: float) -> float:
    """p of ``scipy.stats.ttest_1samp(a, popmean, alternative="greater")`` for a 1-D
    float array of 2+ values."""
    from scipy.special import stdtr

    a = np.asarray(a, dtype=np.float64)
    n = a.shape[-1]
    mean = np.mean(a, axis=-1)
    d = mean - np.asarray(popmean, dtype=np.float64)
    # scipy's _var: the second moment about the mean, times n / (n - 1)
    centred = a - np.mean(a, axis=-1, keepdims=True)
    v = np.mean(centred**2, axis=-1)
    v *= np.asarray(n, dtype=np.float64) / (np.asarray(n, dtype=np.float64) - 1)
    denom = np.sqrt(v / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.divide(d, denom)
    return float(stdtr(np.asarray(n - 1, dtype=t.dtype), -t))


def t_ppf(q: float, df: float) -> float:
    """``scipy.stats.t.ppf(q, df)`` for 0 < q < 1 and df > 0."""
    from scipy.special import stdtrit

    return float(stdtrit(df, q) * 1.0 + 0.0)


def pearson_ci(r: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided interval of ``scipy.stats.pearsonr(...).confidence_interval(
    confidence)`` of r from n items (Fisher's z; (-1, 1) for n <= 3)."""
    from scipy.special import ndtri

    if n <= 3:
        return -1.0, 1.0
    r_ = np.asarray(r, dtype=np.float64)
    level = np.asarray(confidence, dtype=r_.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        zr = np.arctanh(r_)
        se = np.sqrt(1 / (np.asarray(n, dtype=r_.dtype) - 3))
    h = ndtri(0.5 + level / 2)
    return float(np.tanh(zr - h * se)), float(np.tanh(zr + h * se))


def kruskal(groups: Sequence[np.ndarray]) -> tuple[float, float]:
    """(H, p) of ``scipy.stats.kruskal(*groups)`` for two or more non-empty 1-D float
    arrays without NaN (H corrected for ties; p from the chi-squared tail)."""
    from scipy.special import chdtrc

    samples = [np.asarray(g, dtype=np.float64) for g in groups]
    n = [s.shape[-1] for s in samples]
    totaln = sum(n)
    alldata = np.concatenate(samples, axis=-1)
    ranked, t = _average_ranks_and_ties(alldata)
    ties = 1 - np.sum(t**3 - t, axis=-1) / (totaln**3 - totaln)
    j = [0, *np.cumsum(n).tolist()]
    ssbn = sum(np.sum(ranked[j[i] : j[i + 1]], axis=-1) ** 2 / n[i] for i in range(len(n)))
    h = 12.0 / (totaln * (totaln + 1)) * ssbn - 3 * (totaln + 1)
    h /= ties
    df = np.asarray(len(n) - 1, dtype=np.asarray(h).dtype)
    return float(h), float(chdtrc(df, h))


def _average_ranks_and_ties(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scipy.stats' ``_rankdata(x, "average", return_ties=True)`` of a 1-D array: the
    ranks, and each tie group's size at its first place in sorted order (0 elsewhere)."""
    size = x.shape[-1]
    order = np.argsort(x, axis=-1, stable=True)
    ordinal = np.arange(1, size + 1, dtype=np.float64)
    y = np.take_along_axis(x, order, axis=-1)
    first = np.concatenate([np.ones(1, dtype=bool), y[:-1] != y[1:]])
    indices = np.arange(size)[first]
    counts = np.diff(indices, append=np.asarray([size], dtype=indices.dtype))
    ranks = np.repeat(ordinal[first] + (np.asarray(counts, dtype=np.float64) - 1) / 2, counts)
    ordered = np.empty(order.shape, dtype=ranks.dtype)
    np.put_along_axis(ordered, order, ranks, axis=-1)
    t = np.zeros(size, dtype=np.float64)
    t[first] = counts.astype(np.float64)
    return ordered, t


def binom_cdf(k: int, n: int, p: float) -> float:
    """``scipy.stats.binom.cdf(k, n, p)`` for an integer n >= 0 and 0 <= p <= 1."""
    from scipy.special._ufuncs import _binom_cdf

    k = math.floor(k)
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return float(_binom_cdf(float(k), float(n), float(p)))


def _binom_sf(k: int, n: int, p: float) -> float:
    """``scipy.stats.binom.sf(k, n, p)`` for an integer n >= 0 and 0 <= p <= 1."""
    from scipy.special._ufuncs import _binom_sf as sf

    k = math.floor(k)
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    return float(sf(float(k), float(n), float(p)))


def beta_ppf(q: float, a: float, b: float) -> float:
    """``scipy.stats.beta.ppf(q, a, b)`` for a, b > 0 and 0 <= q <= 1."""
    from scipy.special._ufuncs import _beta_ppf

    if q == 0:
        return 0.0
    if q == 1:
        return 1.0
    return float(_beta_ppf(q, a, b) * 1.0 + 0.0)


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """``scipy.stats.binomtest(k, n).proportion_ci(confidence, method="exact")``: the
    two-sided Clopper-Pearson interval, each end found by the same root finder on the
    same binomial tails."""
    from scipy.optimize import brentq

    alpha = (1 - confidence) / 2
    low = 0.0 if k == 0 else brentq(lambda p: _binom_sf(k - 1, n, p) - alpha, 0, 1)
    high = 1.0 if k == n else brentq(lambda p: binom_cdf(k, n, p) - alpha, 0, 1)
    return float(low), float(high)
