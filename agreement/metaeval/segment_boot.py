"""The segment level's bootstrap: groups (inputs) drawn with replacement, all their items
together, every statistic of every resample from a few matrix products.

A resample is a count per group. Sums over items become the counts times per-group sums
(Pearson, and Spearman through the counts of each distinct value); the pairwise
statistics (Kendall, acc_eq) are quadratic forms of the counts over a groups x groups
matrix of pair counts, built once. Pairs of two copies of one item (a group drawn twice)
are tied on both sides, as they are when a resample is handed to an ordinary formula.
Without a group column each item is its own group.
"""

from __future__ import annotations

import numpy as np

from agreement.bootstrap import draw_counts

#: Above this many items the pair matrices (items x items) are not built: the pairwise
#: statistics then have no interval, with this reason.
MAX_PAIR_ITEMS = 4000
TOO_MANY = f"no interval: more than {MAX_PAIR_ITEMS} items for the pairwise bootstrap"


def _pearson_from_sums(
    n: np.ndarray, sx: np.ndarray, sy: np.ndarray, sxx: np.ndarray, syy: np.ndarray, sxy: np.ndarray
) -> np.ndarray:
    """Pearson's r of each resample from its weighted sums (values centred beforehand)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        cxy = sxy - sx * sy / n
        cxx, cyy = sxx - sx * sx / n, syy - sy * sy / n
        return np.clip(cxy / np.sqrt(cxx * cyy), -1.0, 1.0)


def _value_ranks(
    w: np.ndarray, g_items: np.ndarray, codes: np.ndarray, k: int, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """(B, k) average rank of each distinct value among the resample's items, and how
    many copies of it the resample holds."""
    # counts and half-integer ranks below 2**24: exact in float32, at half the cost
    per_group = np.zeros((n_groups, k), dtype=np.float32)
    np.add.at(per_group, (g_items, codes), 1.0)
    per_value = w.astype(np.float32) @ per_group  # (B, k) copies of each distinct value
    below = np.cumsum(per_value, axis=1) - per_value
    rank = below + (per_value + 1) / 2.0
    return rank.astype(np.float64), per_value.astype(np.float64)


def _block_sums(m: np.ndarray, starts: np.ndarray) -> np.ndarray:
    rows = np.add.reduceat(m, starts, axis=0, dtype=np.int64)
    return np.add.reduceat(rows, starts, axis=1)


def segment_bootstrap(
    x: np.ndarray,
    y: np.ndarray,
    group: np.ndarray,
    epsilon: float,
    n_resamples: int,
    seed: int,
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Resampled values of every segment statistic, and why a statistic has none.

    ``x`` people, ``y`` the evaluator, ``group`` each item's group code.
    """
    order = np.argsort(group, kind="stable")
    x, y, group = x[order], y[order], group[order]
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    g_items = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(x)]))
    n_groups = len(starts)
    w = draw_counts(n_groups, n_resamples, seed)  # (B, groups)
    sizes = np.diff(np.r_[starts, len(x)]).astype(float)
    out: dict[str, np.ndarray] = {}
    why: dict[str, str] = {}
    xc, yc = x - x.mean(), y - y.mean()
    # every sum over a resample's items is the draw counts times per-group sums
    per_group = np.zeros((5, n_groups))
    for row, v in enumerate((xc, yc, xc * xc, yc * yc, xc * yc)):
        np.add.at(per_group[row], g_items, v)
    n_items = w @ sizes
    sums = w @ per_group.T
    out["pearson"] = _pearson_from_sums(n_items, *sums.T)
    ux, kx = np.unique(x, return_inverse=True)
    uy, ky = np.unique(y, return_inverse=True)
    rx, cx = _value_ranks(w, g_items, kx, len(ux), n_groups)
    ry, cy = _value_ranks(w, g_items, ky, len(uy), n_groups)
    # the ranks of all n copies add up to n (n + 1) / 2 on both sides
    counts = w[:, g_items]  # (B, items): copies of each item
    rank_sum = n_items * (n_items + 1) / 2
    sxy = np.einsum("bi,bi,bi->b", counts, rx[:, kx], ry[:, ky])
    sxx, syy = (cx * rx * rx).sum(1), (cy * ry * ry).sum(1)
    out["spearman"] = _pearson_from_sums(n_items, rank_sum, rank_sum, sxx, syy, sxy)
    if len(x) > MAX_PAIR_ITEMS:
        for name in ("kendall_b", "kendall_c", "acc_eq"):
            why[name] = TOO_MANY
        return out, why
    # orders from the distinct values' codes: small integers, not items x items floats
    sx = np.sign(np.subtract.outer(kx.astype(np.int16), kx.astype(np.int16)))
    sy = np.sign(np.subtract.outer(ky.astype(np.int16), ky.astype(np.int16)))
    sign = sx * sy
    tx, ty = sx == 0, sy == 0
    tied = np.abs(np.subtract.outer(y, y)) <= epsilon if epsilon > 0 else ty
    agree = np.where(tied, tx, sign > 0)

    def quad(m: np.ndarray) -> np.ndarray:
        blocks = _block_sums(m, starts).astype(np.float64)
        return ((w @ blocks) * w).sum(1)

    n = n_items
    tot = (n * n - n) / 2
    s = quad(sign) / 2
    xt = (quad(tx) - n) / 2
    yt = (quad(ty) - n) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_b = s / np.sqrt((tot - xt) * (tot - yt))
        out["kendall_b"] = np.where((xt == tot) | (yt == tot), np.nan, tau_b)
        present = w > 0
        px = (present @ _group_values(g_items, kx, n_groups, len(ux))) > 0
        py = (present @ _group_values(g_items, ky, n_groups, len(uy))) > 0
        m = np.minimum(px.sum(1), py.sum(1)).astype(float)
        tau_c = 2 * s / (n * n * (m - 1) / m)
        out["kendall_c"] = np.where((xt == tot) | (yt == tot), np.nan, tau_c)
        out["acc_eq"] = (quad(agree) - n) / 2 / tot
    return out, why


def _group_values(g_items: np.ndarray, codes: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """(groups, k): 1 where the group has an item of that distinct value."""
    out = np.zeros((n_groups, k))
    out[g_items, codes] = 1.0
    return out
