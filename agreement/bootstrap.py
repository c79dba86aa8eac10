"""Seeded nonparametric bootstrap over items, as a matrix of draw counts.

A resample of n items drawn with replacement is represented by how often each item was
drawn; B resamples form a (B, n) count matrix. Weighted sums over it (one matrix
product) give every resample's statistic at once, so 1,000 resamples cost a few matrix
products instead of 1,000 Python calls. The interval is the percentile interval
(2.5th and 97.5th percentiles of the resampled statistic).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from scipy import sparse

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20240611
_CACHE: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()
_T_CACHE: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()
_CACHE_SIZE = 6
_T_CACHE_SIZE = 2  # the transposed copies are only needed while a document is built


def draw_counts(
    n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """(B, n) draw counts of B seeded resamples of n items; cached, read-only."""
    key = (n, n_resamples, seed)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    rng = np.random.default_rng(seed)
    counts = np.empty((n_resamples, n), dtype=np.float64)
    for b in range(n_resamples):
        # row by row draws the same stream as one (B, n) ``integers`` call (the tests
        # check it) without holding the (B, n) index matrix
        counts[b] = np.bincount(rng.integers(0, n, size=n, dtype=np.int64), minlength=n)
    counts.flags.writeable = False
    _CACHE[key] = counts
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return counts


def clear_cache() -> None:
    """Forget the cached draw counts (benchmarks time cold computations)."""
    _CACHE.clear()
    _T_CACHE.clear()


def draw_counts_t(
    n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """The same draw counts transposed to (n, B), C-contiguous; cached, read-only.

    Summing the columns of :func:`draw_counts` by group (a sparse product with this
    layout) costs one pass over the counts and no copy.
    """
    key = (n, n_resamples, seed)
    if key in _T_CACHE:
        _T_CACHE.move_to_end(key)
        return _T_CACHE[key]
    out = np.ascontiguousarray(draw_counts(n, n_resamples, seed).T)
    out.flags.writeable = False
    _T_CACHE[key] = out
    while len(_T_CACHE) > _T_CACHE_SIZE:
        _T_CACHE.popitem(last=False)
    return out


def group_sums(w_t: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """(B, n_groups) sums of the weights of the items in each group.

    ``w_t`` is (n, B) (items x resamples, see :func:`draw_counts_t`) and ``codes`` the
    group (0..n_groups-1) of each item. With integer weights the sums are exact, so they
    equal any other way of adding them up.
    """
    n = len(codes)
    onehot = sparse.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(n_groups, n))
    return np.ascontiguousarray((onehot @ w_t).T)


def percentile_ci(
    samples: np.ndarray, min_valid: float = 0.5
) -> tuple[tuple[float, float] | None, str | None]:
    """The 95% percentile interval of the finite samples, or None and why."""
    finite = samples[np.isfinite(samples)]
    if len(samples) == 0 or len(finite) < min_valid * len(samples):
        return None, "statistic undefined in most resamples"
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return (float(lo), float(hi)), None
