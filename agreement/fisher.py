"""Fisher's exact test on a 2 x 2 table (two-sided), without importing scipy.stats.

``scipy.stats.fisher_exact`` sums hypergeometric probabilities that scipy.stats takes from
scipy.special's (private) ``_hypergeom_pmf`` / ``_cdf`` / ``_sf`` ufuncs, behind the
generic discrete-distribution wrapper (support checks, clipping to [0, 1]). This module
calls the same ufuncs with the same support rules and follows scipy 1.17's search for
the other tail step by step, so the p-value is the same float (the tests compare it with
scipy on many tables); importing scipy.stats would cost most of a second per process.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class _Hypergeom:
    """The hypergeometric distribution of k successes in N draws from M items, n good."""

    def __init__(self, M: np.int64, n: np.int64, N: np.int64) -> None:
        self.M, self.n, self.N = M, n, N
        self.lo = max(N - (M - n), 0)
        self.hi = min(n, N)

    def pmf(self, k: int | np.int64) -> float:
        from scipy.special._ufuncs import _hypergeom_pmf

        if not self.lo <= k <= self.hi:
            return 0.0
        return float(np.clip(_hypergeom_pmf(k, self.n, self.N, self.M), 0, 1))

    def cdf(self, k: int | np.int64) -> float:
        from scipy.special._ufuncs import _hypergeom_cdf

        if k >= self.hi:
            return 1.0
        if k < self.lo:
            return 0.0
        return float(np.clip(_hypergeom_cdf(k, self.n, self.N, self.M), 0, 1))

    def sf(self, k: int | np.int64) -> float:
        from scipy.special._ufuncs import _hypergeom_sf

        if k < self.lo:
            return 1.0
        if k >= self.hi:
            return 0.0
        return float(np.clip(_hypergeom_sf(k, self.n, self.N, self.M), 0, 1))


def _binary_search(a: Callable[[int], float], d: float, lo: int, hi: int) -> int:
    """The i in [lo, hi] with a(i) <= d < a(i + 1), ``a`` ascending (scipy's search)."""
    while lo < hi:
        mid = lo + (hi - lo) // 2
        midval = a(mid)
        if midval < d:
            lo = mid + 1
        elif midval > d:
            hi = mid - 1
        else:
            return mid
    return lo if a(lo) <= d else lo - 1


def fisher_exact_p(table: tuple[tuple[int, int], tuple[int, int]]) -> float:
    """Two-sided p-value of Fisher's exact test, as ``scipy.stats.fisher_exact(table)``:

    >>> fisher_exact_p(((8, 2), (1, 5)))
    0.034965034965034975
    """
    c = np.asarray(table, dtype=np.int64)
    if np.any(c < 0):
        raise ValueError("a contingency table has no negative counts")
    if 0 in c.sum(axis=0) or 0 in c.sum(axis=1):
        return 1.0
    n1, n2, n = c[0, 0] + c[0, 1], c[1, 0] + c[1, 1], c[0, 0] + c[1, 0]
    dist = _Hypergeom(n1 + n2, n1, n)
    mode = int((n + 1) * (n1 + 1) / (n1 + n2 + 2))
    pexact, pmode = dist.pmf(c[0, 0]), dist.pmf(mode)
    epsilon = 1e-14
    gamma = 1 + epsilon
    if np.abs(pexact - pmode) / np.maximum(pexact, pmode) <= epsilon:
        return 1.0
    if c[0, 0] < mode:
        plower = dist.cdf(c[0, 0])
        if dist.pmf(n) > pexact * gamma:
            return plower
        guess = _binary_search(lambda x: -dist.pmf(x), -pexact * gamma, mode, int(n))
        pvalue = plower + dist.sf(guess)
    else:
        pupper = dist.sf(c[0, 0] - 1)
        if dist.pmf(0) > pexact * gamma:
            return pupper
        guess = _binary_search(dist.pmf, pexact * gamma, 0, mode)
        pvalue = pupper + dist.cdf(guess)
    return float(min(pvalue, 1.0))
