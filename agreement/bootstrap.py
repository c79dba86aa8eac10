"""Seeded nonparametric bootstrap over items, as draw counts read a chunk at a time.

A resample of n items drawn with replacement is represented by how often each item was
drawn; B resamples form a (B, n) count matrix. Weighted sums over it (one matrix
product) give every resample's statistic at once, so 1,000 resamples cost a few matrix
products instead of 1,000 Python calls. The interval is the percentile interval
(2.5th and 97.5th percentiles of the resampled statistic).

The counts are kept as :class:`Draws`: while the whole (n, B) float matrix fits in
``DENSE_BYTES`` (10,000 items x 1,000 resamples: 80 MB) it is one float64 chunk, as
the statistics read it; above, the counts are stored in chunks of resamples in the
smallest unsigned integer type that holds them (one byte a count: 100 MB at 100,000 x
1,000 instead of 800 MB) and each statistic converts one chunk of ``CHUNK_BYTES`` at a
time. Every statistic's resample b depends on resample b's counts only, so the values do
not depend on the chunks (the tests compare them with ``==``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

#: The whole (n, B) float64 count matrix is kept as one chunk up to this size.
DENSE_BYTES = 128 << 20
#: Above ``DENSE_BYTES``, a chunk of resamples holds at most this many float64 bytes.
CHUNK_BYTES = 64 << 20
#: Cached draws are kept up to this many bytes in all (the latest one always): in a
#: long-lived app server the cache is memory nobody frees; 10,000 items x 1,000 resamples
#: is 80 MB, so six of them would hold half a gigabyte. Only the latest is kept as the
#: float64 matrix the statistics read; the others are kept one byte a count and turned
#: back into the same float64 matrix when asked for again (``_compact``).
CACHE_BYTES = 128 << 20
#: The int64 draws and counts of one block of resamples are at most this size each.
_BLOCK_BYTES = 16 << 20
_CACHE_SIZE = 6
_CACHE: OrderedDict[tuple[int, int, int], Draws] = OrderedDict()
_CACHE_LOCK = threading.Lock()


class Draws:
    """The (n, B) draw counts of B seeded resamples of n items, as chunks of resamples.

    ``chunks`` are C-contiguous (n, rows) arrays, read-only. ``len()`` is B, so code
    written for a (B, n) weight matrix (``len(w)``) reads a ``Draws`` the same way.
    """

    def __init__(self, n: int, chunks: list[np.ndarray]) -> None:
        self.n = n
        self.chunks = chunks
        self.n_resamples = sum(c.shape[1] for c in chunks)

    @classmethod
    def from_matrix(cls, w: np.ndarray) -> Draws:
        """A (B, n) weight matrix as a single chunk (no copy when ``w`` is a transposed
        C-contiguous (n, B) array, as :func:`draw_counts` returns)."""
        w_t = np.ascontiguousarray(np.asarray(w, dtype=np.float64).T)
        return cls(w_t.shape[0], [w_t])

    def __len__(self) -> int:
        return self.n_resamples

    @property
    def nbytes(self) -> int:
        """Bytes held by the stored counts."""
        return sum(c.nbytes for c in self.chunks)

    def chunks_t(self) -> Iterator[tuple[slice, np.ndarray]]:
        """(resamples, read-only float64 (n, rows) counts) for each chunk, in resample
        order. Stored integer chunks are converted into one buffer, so a chunk's array
        is overwritten by the next one: use it before asking for the next (a fresh array
        per chunk would keep two alive while the caller's loop moves on)."""
        buffer = None
        start = 0
        for c in self.chunks:
            n, rows = c.shape
            if c.dtype == np.float64:
                w_t = c
            else:
                if buffer is None:
                    buffer = np.empty(n * max(k.shape[1] for k in self.chunks))
                w_t = buffer[: n * rows].reshape(n, rows)
                np.copyto(w_t, c)
                w_t.flags.writeable = False
            yield slice(start, start + rows), w_t
            start += rows

    def product(self, values: np.ndarray) -> np.ndarray:
        """``w @ values`` for the (B, n) counts ``w``: (B,) or (B, k) for (n,) or (n, k)."""
        values = np.asarray(values)
        if len(self.chunks) == 1:
            return next(self.chunks_t())[1].T @ values
        out = np.empty((self.n_resamples, *values.shape[1:]), dtype=np.result_type(values, 1.0))
        for part, w_t in self.chunks_t():
            out[part] = w_t.T @ values
        return out

    def group_sums(self, codes: np.ndarray, n_groups: int) -> np.ndarray:
        """(B, n_groups) sums of the counts of the items in each group (see
        :func:`group_sums`)."""
        parts = list(self.chunk_group_sums(codes, n_groups))
        if len(parts) == 1:
            return parts[0][1]
        out = np.empty((self.n_resamples, n_groups))
        for part, sums in parts:
            out[part] = sums
        return out

    def chunk_group_sums(
        self, codes: np.ndarray, n_groups: int
    ) -> Iterator[tuple[slice, np.ndarray]]:
        """(resamples, their C-contiguous (rows, n_groups) group sums) for each chunk."""
        onehot = group_onehot(codes, n_groups)
        for part, w_t in self.chunks_t():
            yield part, np.ascontiguousarray((onehot @ w_t).T)

    def matrix_t(self) -> np.ndarray:
        """The whole (n, B) float64 matrix: the stored chunk itself when there is one,
        else a fresh array (n x B x 8 bytes; the statistics of the agreement document
        read chunks instead)."""
        if len(self.chunks) == 1 and self.chunks[0].dtype == np.float64:
            return self.chunks[0]
        out = np.empty((self.n, self.n_resamples))
        for part, w_t in self.chunks_t():
            out[:, part] = w_t
        out.flags.writeable = False
        return out


def as_draws(w: np.ndarray | Draws) -> Draws:
    """``w`` as :class:`Draws` (a (B, n) matrix becomes one chunk)."""
    return w if isinstance(w, Draws) else Draws.from_matrix(w)


def weighted_sums(w: np.ndarray | Draws, values: np.ndarray) -> np.ndarray:
    """``w @ values`` for a (B, n) weight matrix or :class:`Draws` (read a chunk at a time)."""
    return w.product(values) if isinstance(w, Draws) else np.asarray(w, dtype=float) @ values


def chunk_rows(n: int, n_resamples: int) -> int:
    """Resamples per stored chunk for n items: all of them while the float64 matrix fits
    in ``DENSE_BYTES``, else as many as ``CHUNK_BYTES`` holds (at least one)."""
    if n * n_resamples * 8 <= DENSE_BYTES:
        return max(n_resamples, 1)
    return max(1, min(n_resamples, CHUNK_BYTES // (8 * max(n, 1))))


def count_dtype(largest: int) -> np.dtype:
    """The smallest unsigned integer type holding counts up to ``largest`` (one byte
    unless an item is drawn more than 255 times in a resample)."""
    return np.min_scalar_type(largest) if largest >= 0 else np.dtype(np.int64)


def _joined(blocks: list[np.ndarray], n: int) -> np.ndarray:
    """The (n, rows) chunk of the (rows_i, n) count blocks, in their widest type."""
    chunk = np.empty((n, sum(len(b) for b in blocks)), dtype=np.result_type(*blocks))
    first = 0
    for counts in blocks:
        chunk[:, first : first + len(counts)] = counts.T
        first += len(counts)
    return chunk


def draws(n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Draws:
    """The seeded draw counts of B resamples of n items; cached (``_CACHE_SIZE`` entries
    and ``CACHE_BYTES``; the latest as float64, see ``_compact``), read-only."""
    key = (n, n_resamples, seed)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            dense = n * n_resamples * 8 <= DENSE_BYTES
            if dense and hit.chunks and hit.chunks[0].dtype != np.float64:
                hit = Draws(n, [_as_float(hit.chunks[0])])
            _keep(key, hit)
            return hit
    rng = np.random.default_rng(seed)
    rows = chunk_rows(n, n_resamples)
    dense = n * n_resamples * 8 <= DENSE_BYTES
    chunks = []
    for start in range(0, n_resamples, rows):
        size = min(rows, n_resamples - start)
        step = max(1, min(size, _BLOCK_BYTES // (8 * max(n, 1))))
        blocks = []  # compact: each block in the smallest type holding its counts
        dense_chunk = np.empty((n, size)) if dense else None
        for first in range(0, size, step):
            # a block of resamples at a time draws the same stream as one (B, n)
            # ``integers`` call (the tests check it); one bincount counts the block
            # (resample j's items shifted by j * n)
            block = min(step, size - first)
            drawn = rng.integers(0, n, size=(block, n), dtype=np.int64)
            drawn += (np.arange(block, dtype=np.int64) * n)[:, None]
            counts = np.bincount(drawn.ravel(), minlength=block * n).reshape(block, n)
            del drawn
            if dense_chunk is not None:
                dense_chunk[:, first : first + block] = counts.T
            else:
                blocks.append(counts.astype(count_dtype(int(counts.max()))))
            del counts
        chunk = dense_chunk if dense_chunk is not None else _joined(blocks, n)
        del blocks
        chunk.flags.writeable = False
        chunks.append(chunk)
    out = Draws(n, chunks)
    with _CACHE_LOCK:
        _keep(key, out)
    return out


def _keep(key: tuple[int, int, int], value: Draws) -> None:
    """Cache ``value`` as the latest entry, the others compact, within the bounds (the
    caller holds ``_CACHE_LOCK``)."""
    _CACHE[key] = value
    _CACHE.move_to_end(key)
    for other, held in list(_CACHE.items()):
        if other != key:
            _CACHE[other] = _compact(held)
    while len(_CACHE) > 1 and (
        len(_CACHE) > _CACHE_SIZE or sum(d.nbytes for d in _CACHE.values()) > CACHE_BYTES
    ):
        _CACHE.popitem(last=False)


def _compact(held: Draws) -> Draws:
    """A whole float64 count matrix as the same counts one byte each (a wider type where
    an item is drawn more than 255 times); chunked draws are compact already. Whoever
    still reads the float64 matrix keeps it until done."""
    if len(held.chunks) != 1 or held.chunks[0].dtype != np.float64:
        return held
    w_t = held.chunks[0]
    small = w_t.astype(count_dtype(int(w_t.max()) if w_t.size else 0))
    small.flags.writeable = False
    return Draws(held.n, [small])


def _as_float(counts: np.ndarray) -> np.ndarray:
    """The read-only C-contiguous float64 matrix of stored integer counts (exact)."""
    w_t = np.ascontiguousarray(counts, dtype=np.float64)
    w_t.flags.writeable = False
    return w_t


def draw_counts_t(
    n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """(n, B) float64 draw counts of B seeded resamples of n items, C-contiguous, read-only:
    the cached matrix while it fits in ``DENSE_BYTES``, else assembled afresh from the
    chunks (prefer :func:`draws` there)."""
    return draws(n, n_resamples, seed).matrix_t()


def draw_counts(
    n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """(B, n) draw counts of B seeded resamples of n items: a read-only view of
    :func:`draw_counts_t` (row b: how often each item was drawn in resample b)."""
    return draw_counts_t(n, n_resamples, seed).T


def clear_cache() -> None:
    """Forget the cached draw counts (benchmarks time cold computations)."""
    _CACHE.clear()


def prefetch(n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> bool:
    """Draw and cache the resamples of ``n`` items ahead of the page that will need them
    (a project's first analysis page at 10,000 items: about 0.5 s of its first visit),
    kept one byte a count until then; False when they were cached already."""
    with _CACHE_LOCK:
        if (n, n_resamples, seed) in _CACHE:
            return False
    draws(n, n_resamples, seed)
    compact_cache()
    return True


def compact_cache() -> int:
    """Keep every cached draw one byte a count, the latest too (a long-lived server between
    two runs: the next :func:`draws` of it turns it back into the same float64 matrix
    once). Returns the bytes the cache gave up."""
    with _CACHE_LOCK:
        before = sum(d.nbytes for d in _CACHE.values())
        for key, held in list(_CACHE.items()):
            _CACHE[key] = _compact(held)
        return before - sum(d.nbytes for d in _CACHE.values())


def group_onehot(codes: np.ndarray, n_groups: int) -> csr_matrix:
    """The (n_groups, n) 0/1 matrix of the items' groups (a sparse product sums them)."""
    from scipy import sparse  # a third of a second to import: only where it is used

    n = len(codes)
    return sparse.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(n_groups, n))


def group_sums(w_t: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """(B, n_groups) sums of the weights of the items in each group.

    ``w_t`` is (n, B) (items x resamples, see :func:`draw_counts_t`) and ``codes`` the
    group (0..n_groups-1) of each item. With integer weights the sums are exact, so they
    equal any other way of adding them up.
    """
    return np.ascontiguousarray((group_onehot(codes, n_groups) @ w_t).T)


def percentile_ci(
    samples: np.ndarray, min_valid: float = 0.5
) -> tuple[tuple[float, float] | None, str | None]:
    """The 95% percentile interval of the finite samples, or None and why."""
    finite = samples[np.isfinite(samples)]
    if len(samples) == 0 or len(finite) < min_valid * len(samples):
        return None, "statistic undefined in most resamples"
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return (float(lo), float(hi)), None
