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

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

_CACHE: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()
_CACHE_SIZE = 6
#: At most this many bytes of draw counts are kept (the newest matrix always is): in a
#: long-lived app server the cache is memory nobody frees; 10,000 items x 1,000 resamples
#: is 80 MB, so six of them would hold half a gigabyte.
_CACHE_BYTES = 128 << 20
_BLOCK = 64  # resamples drawn per block before they are written into the (n, B) layout


def draw_counts_t(
    n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """(n, B) draw counts of B seeded resamples of n items, C-contiguous; cached, read-only.

    Summing the counts of items by group (a sparse product with this layout, see
    :func:`group_sums`) costs one pass and no copy. The matrix is stored once, in this
    layout only: at 10,000 items x 1,000 resamples it is 80 MB, and a second copy in the
    other layout would cost as much again in fresh memory.
    """
    key = (n, n_resamples, seed)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    rng = np.random.default_rng(seed)
    out = np.empty((n, n_resamples), dtype=np.float64)
    for start in range(0, n_resamples, _BLOCK):
        rows = min(_BLOCK, n_resamples - start)
        # a block of resamples at a time draws the same stream as one (B, n) ``integers``
        # call (the tests check it) without holding the (B, n) index matrix; one
        # bincount counts the whole block (resample j's items shifted by j * n)
        drawn = rng.integers(0, n, size=(rows, n), dtype=np.int64)
        drawn += (np.arange(rows, dtype=np.int64) * n)[:, None]
        block = np.bincount(drawn.ravel(), minlength=rows * n).reshape(rows, n)
        out[:, start : start + rows] = block.T
    out.flags.writeable = False
    _CACHE[key] = out
    while len(_CACHE) > 1 and (
        len(_CACHE) > _CACHE_SIZE or sum(a.nbytes for a in _CACHE.values()) > _CACHE_BYTES
    ):
        _CACHE.popitem(last=False)
    return out


def draw_counts(
    n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """(B, n) draw counts of B seeded resamples of n items: a read-only view of
    :func:`draw_counts_t` (row b: how often each item was drawn in resample b)."""
    return draw_counts_t(n, n_resamples, seed).T


def clear_cache() -> None:
    """Forget the cached draw counts (benchmarks time cold computations)."""
    _CACHE.clear()


def group_sums(w_t: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """(B, n_groups) sums of the weights of the items in each group.

    ``w_t`` is (n, B) (items x resamples, see :func:`draw_counts_t`) and ``codes`` the
    group (0..n_groups-1) of each item. With integer weights the sums are exact, so they
    equal any other way of adding them up.
    """
    from scipy import sparse  # a third of a second to import: only where it is used

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
