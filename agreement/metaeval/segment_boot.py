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


def _weighted_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of (B, n) arrays with (B, n) weights, row by row."""
    sw = w.sum(1)
    mx, my = (w * x).sum(1) / sw, (w * y).sum(1) / sw
    xc, yc = x - mx[:, None], y - my[:, None]
    sxy = (w * xc * yc).sum(1)
    sxx, syy = (w * xc * xc).sum(1), (w * yc * yc).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)


def _value_ranks(
    w: np.ndarray, g_items: np.ndarray, codes: np.ndarray, k: int, n_groups: int
) -> np.ndarray:
    """(B, n) average ranks of each item among the resample's items, by distinct value."""
    per_group = np.zeros((n_groups, k))
    np.add.at(per_group, (g_items, codes), 1.0)
    per_value = w @ per_group  # (B, k) copies of each distinct value
    below = np.cumsum(per_value, axis=1) - per_value
    rank = below + (per_value + 1) / 2.0
    return rank[:, codes]


def _block_sums(m: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.add.reduceat(np.add.reduceat(m, starts, axis=0), starts, axis=1)


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
    counts = w[:, g_items]  # (B, items): copies of each item
    out: dict[str, np.ndarray] = {}
    why: dict[str, str] = {}
    xc, yc = x - x.mean(), y - y.mean()
    out["pearson"] = _weighted_pearson(counts, xc[None, :], yc[None, :])
    ux, kx = np.unique(x, return_inverse=True)
    uy, ky = np.unique(y, return_inverse=True)
    rx = _value_ranks(w, g_items, kx, len(ux), n_groups)
    ry = _value_ranks(w, g_items, ky, len(uy), n_groups)
    out["spearman"] = _weighted_pearson(counts, rx, ry)
    if len(x) > MAX_PAIR_ITEMS:
        for name in ("kendall_b", "kendall_c", "acc_eq"):
            why[name] = TOO_MANY
        return out, why
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    sign = (np.sign(dx) * np.sign(dy)).astype(np.int32)
    tx, ty = (dx == 0), (dy == 0)
    agree = np.where(np.abs(dy) <= epsilon, tx, sign > 0).astype(np.int32)

    def quad(m: np.ndarray) -> np.ndarray:
        blocks = _block_sums(m.astype(np.float64), starts)
        return ((w @ blocks) * w).sum(1)

    n = w @ np.diff(np.r_[starts, len(x)]).astype(float)
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
