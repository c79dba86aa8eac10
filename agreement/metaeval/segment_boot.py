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

from dataclasses import dataclass

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
    w_t: np.ndarray, g_items: np.ndarray, codes: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(k, B) average rank of each distinct value among each resample's items, and how
    many copies of it the resample holds (``w_t``: groups x resamples draw counts)."""
    # copies of a value: the draw counts of its items' groups, added (integers, exact);
    # rows of the (groups, B) counts gathered, not a (B, groups) x (groups, k) product
    by_value = np.argsort(codes, kind="stable")
    per_value = np.take(w_t, g_items[by_value], axis=0)
    if k < len(codes):
        per_value = np.add.reduceat(
            per_value, np.r_[0, np.flatnonzero(np.diff(codes[by_value])) + 1], axis=0
        )
    # running totals row by row: numpy's cumsum along axis 0 is many times slower, and
    # the counts are integers, so any order of adding gives the same ranks
    ranks = np.empty_like(per_value)
    ranks[0] = per_value[0]
    for i in range(1, len(per_value)):
        np.add(ranks[i - 1], per_value[i], out=ranks[i])
    ranks -= per_value * 0.5
    ranks += 0.5
    return ranks, per_value


def _weighted_squares(r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(B,) sum over values of copies x rank squared ((k, B) operands; exact)."""
    out = r * r
    out *= c
    return out.sum(0)


def signs(codes: np.ndarray) -> np.ndarray:
    """(n, n) int8 sign of ``codes[i] - codes[j]`` from two comparisons (a third of the
    time of the subtraction's sign)."""
    return (codes[:, None] > codes[None, :]).view(np.int8) - (codes[:, None] < codes[None, :]).view(
        np.int8
    )


def _block_sums(m: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(groups, groups) sums of an items x items matrix of -1/0/1 (int8 or bool) over
    each pair of groups; int16 row sums hold MAX_PAIR_ITEMS items."""
    # a sum over each group's rows (contiguous row additions) is several times faster
    # than reduceat along axis 0
    ends = np.r_[starts[1:], m.shape[0]]
    rows = np.empty((len(starts), m.shape[1]), dtype=np.int16)
    for g, (a, b) in enumerate(zip(starts, ends, strict=True)):
        m[a:b].sum(0, dtype=np.int16, out=rows[g])
    return np.add.reduceat(rows, starts, axis=1, dtype=np.int64)


def _products(w: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """``w @ blocks`` of integer matrices: in single precision (twice as fast) when every
    sum stays below 2**24, where float32 still holds each integer exactly."""
    bound = float(w.max(initial=0.0)) * float(np.abs(blocks).sum(0).max(initial=0.0))
    if bound < 2**24:
        return (w.astype(np.float32) @ blocks.astype(np.float32)).astype(np.float64)
    return w @ blocks


def _tie_blocks(g_items: np.ndarray, codes: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """(groups, groups) ordered pairs of items (each with itself too) of one value: the
    product of the groups' counts of each value, no items x items matrix."""
    if k == len(codes):  # every value once: each item pairs only with itself
        return np.diag(np.bincount(g_items, minlength=n_groups).astype(np.float64))
    per_group = np.bincount(g_items * k + codes, minlength=n_groups * k).reshape(n_groups, k)
    per_group = per_group.astype(np.float64)  # counts: the product is exact
    return per_group @ per_group.T


def _distinct_drawn(
    present: np.ndarray, g_items: np.ndarray, codes: np.ndarray, n_groups: int, k: int
) -> np.ndarray:
    """(B,) distinct values among each resample's items (``present``: groups drawn). A
    value of one group is there when its group is; the others need a product."""
    if k == len(codes):  # every value once: a drawn group brings all of its own
        return present @ np.bincount(g_items, minlength=n_groups).astype(np.float64)
    has = _group_values(g_items, codes, n_groups, k)
    single = has.sum(0) == 1
    out = present @ has[:, single].sum(1)
    if not single.all():
        out = out + ((present @ has[:, ~single]) > 0).sum(1)
    return out


@dataclass(frozen=True)
class _PeopleSide:
    """What a row's bootstrap needs of the people's values and the groups alone: the
    same for every evaluator scored on the same items, so it is built once for them all."""

    order: np.ndarray
    starts: np.ndarray
    g_items: np.ndarray
    w: np.ndarray
    n_items: np.ndarray
    xc: np.ndarray
    kx: np.ndarray
    rx_items: np.ndarray  # (items, B) each item's rank times its copies
    sxx: np.ndarray  # (B,) the ranks' weighted squares
    sx: np.ndarray | None
    tx: np.ndarray | None
    distinct_x: np.ndarray | None


#: The last people side built, by its inputs' bytes: one entry (the 13 rows of a
#: meta-evaluation share it; a row with other items replaces it).
_LAST: dict[str, tuple[tuple, _PeopleSide]] = {}


def _people_side(x: np.ndarray, group: np.ndarray, n_resamples: int, seed: int) -> _PeopleSide:
    """The people's side of ``segment_bootstrap`` (cached for the next row)."""
    key = (x.tobytes(), np.asarray(group).tobytes(), str(group.dtype), n_resamples, seed)
    last = _LAST.get("side")
    if last is not None and last[0] == key:
        return last[1]
    order = np.argsort(group, kind="stable")
    x, group = x[order], group[order]
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    g_items = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(x)]))
    n_groups = len(starts)
    w = draw_counts(n_groups, n_resamples, seed)  # (B, groups)
    n_items = w @ np.diff(np.r_[starts, len(x)]).astype(float)
    ux, kx = np.unique(x, return_inverse=True)
    rx, cx = _value_ranks(w.T, g_items, kx, len(ux))
    rx_items = np.take(rx, kx, axis=0)
    rx_items *= np.take(w.T, g_items, axis=0)  # integers and halves: exact
    sx = tx = distinct_x = None
    if len(x) <= MAX_PAIR_ITEMS:
        # orders from the distinct values' codes: small integers, not items x items floats
        k16 = kx.astype(np.int16)
        sx = signs(k16)
        tx = _tie_blocks(g_items, kx, n_groups, len(ux))
        present = (w > 0).astype(np.float64)
        distinct_x = _distinct_drawn(present, g_items, kx, n_groups, len(ux))
    side = _PeopleSide(
        order,
        starts,
        g_items,
        w,
        n_items,
        x - x.mean(),
        kx,
        rx_items,
        _weighted_squares(rx, cx),
        sx,
        tx,
        distinct_x,
    )
    _LAST["side"] = (key, side)
    return side


def _near_codes(u: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct sorted value ``u[a]``: the first and last codes ``b`` with
    ``|u[b] - u[a]| <= epsilon``, exactly as the float test decides (a rounded difference
    grows with ``b``, so they form one run of codes; a search finds it roughly, then
    steps fix the ends)."""
    k = len(u)
    a = np.arange(k)
    hi = np.clip(np.searchsorted(u, u + epsilon, side="right") - 1, a, k - 1)
    lo = np.clip(np.searchsorted(u, u - epsilon, side="left"), 0, a)
    while True:  # the rounded sum may land a code off either way
        down = (hi > a) & (u[hi] - u[a] > epsilon)
        up = (hi + 1 < k) & ~down
        up[up] = u[hi[up] + 1] - u[a[up]] <= epsilon
        if not (down.any() or up.any()):
            break
        hi = hi - down + up
    while True:
        down = (lo < a) & (u[a] - u[lo] > epsilon)
        up = (lo > 0) & ~down
        up[up] = u[a[up]] - u[lo[up] - 1] <= epsilon
        if not (down.any() or up.any()):
            break
        lo = lo + down - up
    return lo, hi


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
    ps = _people_side(x, group, n_resamples, seed)
    y = y[ps.order]
    w, g_items, n_items, starts = ps.w, ps.g_items, ps.n_items, ps.starts
    n_groups = len(starts)
    out: dict[str, np.ndarray] = {}
    why: dict[str, str] = {}
    xc, yc = ps.xc, y - y.mean()
    # every sum over a resample's items is the draw counts times per-group sums
    # bincount adds in item order, as np.add.at did: the same sums
    per_group = np.stack(
        [
            np.bincount(g_items, weights=v, minlength=n_groups)
            for v in (xc, yc, xc * xc, yc * yc, xc * yc)
        ]
    )
    sums = w @ per_group.T
    out["pearson"] = _pearson_from_sums(n_items, *sums.T)
    uy, ky = np.unique(y, return_inverse=True)
    w_t = w.T  # (groups, B), C-contiguous: item rows gathered and summed row by row
    ry, cy = _value_ranks(w_t, g_items, ky, len(uy))
    # the ranks of all n copies add up to n (n + 1) / 2 on both sides
    rank_sum = n_items * (n_items + 1) / 2
    # counts times half-integer ranks: integers and halves, so every sum is exact and
    # the layout (items x resamples) does not change a bit
    prod = np.take(ry, ky, axis=0)
    prod *= ps.rx_items  # the people's ranks times copies: the same for every row
    sxy = prod.sum(0)
    sxx, syy = ps.sxx, _weighted_squares(ry, cy)
    out["spearman"] = _pearson_from_sums(n_items, rank_sum, rank_sum, sxx, syy, sxy)
    if ps.sx is None:
        for name in ("kendall_b", "kendall_c", "acc_eq"):
            why[name] = TOO_MANY
        return out, why
    sx = ps.sx
    ky16 = ky.astype(np.int16)
    sy = signs(ky16)
    sign = sx * sy
    if epsilon > 0:
        # within epsilon in y, from the codes: code j in item i's run [lo, hi]
        lo, hi = _near_codes(uy, epsilon)
        lo_i = lo[ky].astype(np.int16)
        width = (hi - lo)[ky].astype(np.uint16)
        near = (ky16[None, :] - lo_i[:, None]).view(np.uint16) <= width[:, None]
        agree = ((sx == 0) & near) | ((sign > 0) & ~near)  # boolean masks: no np.where
    else:  # tied in y: agree when tied in x too, i.e. sign 0 in y and x
        agree = (sign > 0) | ((sx == 0) & (sy == 0))
    ty = _tie_blocks(g_items, ky, n_groups, len(uy))
    # every quadratic form w' M w from one product with the four block matrices
    blocks = np.concatenate(
        [_block_sums(sign, starts), ps.tx, ty, _block_sums(agree, starts)], axis=1
    ).astype(np.float64)
    quads = (_products(w, blocks).reshape(len(w), 4, n_groups) * w[:, None, :]).sum(2)

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
            ps.distinct_x, _distinct_drawn(present, g_items, ky, n_groups, len(uy))
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
