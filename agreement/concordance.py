"""Kendall's concordance sum S = n_c - n_d for many integer weightings of the same pairs.

A bootstrap resample is a weight (draw count) per item, so every resample shares the
items' order; only the weights change. With items sorted by (x, y),

    S = sum_{j before i} w_i w_j sign(y_i - y_j)  -  (the same over pairs tied in x),

and the first sum is a weighted inversion count, taken bottom-up like a merge sort: at
the level with half-blocks of h items, each item of a right half meets the items of the
left half of its block, and sum_j w_j sign(y_i - y_j) over them is read off cumulative
sums of the left half's weights in y order. Where each item lands in that order does not
depend on the weights, so it is planned once (:meth:`ConcordancePlan.build`) and applied
to a (B, n) weight matrix with a few gathers and cumulative sums per level: O(B n log n).
Copies of one item are tied in both variables and contribute nothing, as in the
expanded resample. All sums are of integers, so S is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class _Level:
    """One merge level: which weights to accumulate and where to read the sums."""

    gather: np.ndarray  # (n,) row of w (n = the zero row) in (block, y) order
    right: np.ndarray  # (m,) sorted positions of the right-half items
    plus: np.ndarray  # (2, m) cumulative-sum indices added for each right item
    right_starts: np.ndarray  # where each block's right items start within ``right``
    minus: np.ndarray  # (2, blocks) cumulative-sum indices subtracted per block


@dataclass(frozen=True)
class ConcordancePlan:
    """Everything about the pairs of (x, y) that does not depend on the weights."""

    order: np.ndarray
    levels: tuple[_Level, ...]
    tie_start_x: np.ndarray  # per sorted item: first position of its x group
    tie_start_xy: np.ndarray  # per sorted item: first position of its (x, y) group

    @classmethod
    def build(cls, x: np.ndarray, y: np.ndarray) -> ConcordancePlan:
        """Plan for paired values ``x`` and ``y`` (same length)."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        order = np.lexsort((y, x))
        xs, ys = x[order], y[order]
        n = len(order)
        yr = np.unique(ys, return_inverse=True)[1].ravel().astype(np.int64)
        n_y = int(yr.max()) + 1 if n else 1
        pos = np.arange(n)
        levels = []
        h = 1
        while h < n:
            block = pos // (2 * h)
            is_right = (pos // h) % 2 == 1
            key = block * n_y + yr
            perm = np.argsort(key, kind="stable")
            keys = key[perm]
            gather = np.where(is_right[perm], n, perm)
            right = pos[is_right]
            kr = key[is_right]
            br = block[is_right]
            less = np.searchsorted(keys, kr, "left")  # left weight with key < k_i (+ earlier)
            leq = np.searchsorted(keys, kr, "right")
            start = np.searchsorted(keys, br * n_y, "left")
            end = np.searchsorted(keys, (br + 1) * n_y, "left")
            # sum_j w_j sign(y_i - y_j) over the left half = C[less] + C[leq] - C[end] - C[start]
            # (the last two are the same for every right item of a block)
            first = np.r_[True, br[1:] != br[:-1]] if len(br) else np.zeros(0, bool)
            levels.append(
                _Level(
                    gather,
                    right,
                    np.stack([less, leq]),
                    np.flatnonzero(first),
                    np.stack([end[first], start[first]]),
                )
            )
            h *= 2
        new_x = np.r_[True, xs[1:] != xs[:-1]] if n else np.zeros(0, bool)
        new_xy = new_x | (np.r_[True, ys[1:] != ys[:-1]] if n else np.zeros(0, bool))
        start_x = np.maximum.accumulate(np.where(new_x, pos, 0)) if n else pos
        start_xy = np.maximum.accumulate(np.where(new_xy, pos, 0)) if n else pos
        return cls(order, tuple(levels), start_x, start_xy)

    def s(self, w_t: np.ndarray) -> np.ndarray:
        """S = n_c - n_d for each weighting: ``w_t`` is (n, B) integer weights, items in
        original order. Computed in integers (exact; int32 where nothing can overflow, as
        it halves the memory traffic); returned as floats."""
        n, b = w_t.shape
        total_w = float(w_t.sum(axis=0).max()) if n else 0.0
        small = float(w_t.max(initial=0)) * 2 * total_w < 2**31
        dtype = np.int32 if small else np.int64
        ws = np.zeros((n + 1, b), dtype=dtype)  # sorted items' weights, then a zero row
        ws[:n] = np.take(w_t, self.order, axis=0)
        cum = np.zeros((n + 1, b), dtype=dtype)
        total = np.zeros(b, dtype=np.int64)
        for lv in self.levels:
            np.cumsum(np.take(ws, lv.gather, axis=0), axis=0, out=cum[1:])
            w_right = np.take(ws, lv.right, axis=0)
            part = np.take(cum, lv.plus[0], axis=0)
            part += np.take(cum, lv.plus[1], axis=0)
            part *= w_right
            total += part.sum(axis=0, dtype=np.int64)
            per_block = np.add.reduceat(w_right, lv.right_starts, axis=0, dtype=np.int64)
            base = np.take(cum, lv.minus[0], axis=0) + np.take(cum, lv.minus[1], axis=0)
            total -= (per_block * base).sum(axis=0)
        # pairs tied in x were counted above: items of one x group before i with smaller y
        np.cumsum(ws[:n], axis=0, out=cum[1:])
        tied = np.take(cum, self.tie_start_xy, axis=0) - np.take(cum, self.tie_start_x, axis=0)
        tied *= ws[:n]
        return (total - tied.sum(axis=0, dtype=np.int64)).astype(float)
