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
    w: np.ndarray, g_items: np.ndarray, codes: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(B, k) average rank of each distinct value among the resample's items, and how
    many copies of it the resample holds."""
    # copies of a value: the draw counts of its items' groups, added (integers, exact);
    # a gather and a sum per value rather than a (B, groups) x (groups, k) product
    by_value = np.argsort(codes, kind="stable")
    per_value = w[:, g_items[by_value]]
    if k < len(codes):
        per_value = np.add.reduceat(
            per_value, np.r_[0, np.flatnonzero(np.diff(codes[by_value])) + 1], axis=1
        )
    below = np.cumsum(per_value, axis=1) - per_value
    return below + (per_value + 1) / 2.0, per_value


def _block_sums(m: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(groups, groups) sums of an items x items matrix of -1/0/1 (int8 or bool) over
    each pair of groups; int16 row sums hold MAX_PAIR_ITEMS items."""
    rows = np.add.reduceat(m, starts, axis=0, dtype=np.int16)
    return np.add.reduceat(rows, starts, axis=1, dtype=np.int64)


def _tie_blocks(g_items: np.ndarray, codes: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """(groups, groups) ordered pairs of items (each with itself too) of one value: the
    product of the groups' counts of each value, no items x items matrix."""
    per_group = np.zeros((n_groups, k))
    np.add.at(per_group, (g_items, codes), 1.0)
    return per_group @ per_group.T


def _distinct_drawn(
    present: np.ndarray, g_items: np.ndarray, codes: np.ndarray, n_groups: int, k: int
) -> np.ndarray:
    """(B,) distinct values among each resample's items (``present``: groups drawn). A
    value of one group is there when its group is; the others need a product."""
    has = _group_values(g_items, codes, n_groups, k)
    single = has.sum(0) == 1
    out = present @ has[:, single].sum(1)
    if not single.all():
        out = out + ((present @ has[:, ~single]) > 0).sum(1)
    return out


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
    rx, cx = _value_ranks(w, g_items, kx, len(ux))
    ry, cy = _value_ranks(w, g_items, ky, len(uy))
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
    sx = np.sign(np.subtract.outer(kx.astype(np.int16), kx.astype(np.int16))).astype(np.int8)
    sy = np.sign(np.subtract.outer(ky.astype(np.int16), ky.astype(np.int16))).astype(np.int8)
    sign = sx * sy
    if epsilon > 0:
        agree = np.where(np.abs(np.subtract.outer(y, y)) <= epsilon, sx == 0, sign > 0)
    else:  # tied in y: agree when tied in x too, i.e. sign 0 in y and x
        agree = (sign > 0) | ((sx == 0) & (sy == 0))
    tx = _tie_blocks(g_items, kx, n_groups, len(ux))
    ty = _tie_blocks(g_items, ky, n_groups, len(uy))
    # every quadratic form w' M w from one product with the four block matrices
    blocks = np.concatenate(
        [_block_sums(sign, starts), tx, ty, _block_sums(agree, starts)], axis=1
    ).astype(np.float64)
    quads = ((w @ blocks).reshape(len(w), 4, n_groups) * w[:, None, :]).sum(2)

    n = n_items
    tot = (n * n - n) / 2
    s = quads[:, 0] / 2
    xt = (quads[:, 1] - n) / 2
    yt = (quads[:, 2] - n) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_b = s / np.sqrt((tot - xt) * (tot - yt))
        out["kendall_b"] = np.where((xt == tot) | (yt == tot), np.nan, tau_b)
        present = (w > 0).astype(np.float64)
        m = np.minimum(
            _distinct_drawn(present, g_items, kx, n_groups, len(ux)),
            _distinct_drawn(present, g_items, ky, n_groups, len(uy)),
        ).astype(float)
        tau_c = 2 * s / (n * n * (m - 1) / m)
        out["kendall_c"] = np.where((xt == tot) | (yt == tot), np.nan, tau_c)
        out["acc_eq"] = (quads[:, 3] - n) / 2 / tot
    return out, why


def _group_values(g_items: np.ndarray, codes: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """(groups, k): 1 where the group has an item of that distinct value."""
    out = np.zeros((n_groups, k))
    out[g_items, codes] = 1.0
    return out
