"""The statistics over many short vectors at once: the last axis holds the units (systems),
every leading axis is a batch (resamples, groups); NaN marks a missing value.

These give the system level's figures, the group level's per-group figures, and every
resample and permutation of both, without a Python loop per vector. Pairs of units that
are copies of one original (a system drawn twice by the bootstrap) can be left out of the
pairwise statistics through ``origin``.
"""

from __future__ import annotations

import numpy as np


def _moments(x: np.ndarray, y: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, ...]:
    n = ok.sum(-1)
    xs, ys = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = xs.sum(-1) / n
        my = ys.sum(-1) / n
    xc = np.where(ok, x - mx[..., None], 0.0)
    yc = np.where(ok, y - my[..., None], 0.0)
    return n, xc, yc


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r along the last axis (NaN: fewer than 2 values or a constant side)."""
    ok = np.isfinite(x) & np.isfinite(y)
    n, xc, yc = _moments(x, y, ok)
    sxx, syy = (xc * xc).sum(-1), (yc * yc).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(-1) / np.sqrt(sxx * syy)
    const = _constant(x, ok) | _constant(y, ok)
    r = np.where((n < 2) | const, np.nan, r)
    return np.clip(r, -1.0, 1.0)


def _constant(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    lo = np.where(ok, x, np.inf).min(-1)
    hi = np.where(ok, x, -np.inf).max(-1)
    return ~(hi > lo)


def _sorted(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks and distinct values along the last axis of finite ``x``, by one sort:
    a run of equal values spans positions start..end, its rank (start + end) / 2 + 1."""
    s = x.shape[-1]
    order = np.argsort(x, axis=-1)
    srt = np.take_along_axis(x, order, -1)
    new = srt[..., 1:] != srt[..., :-1]
    edge = np.ones((*new.shape[:-1], 1), dtype=bool)
    first, last = np.concatenate([edge, new], -1), np.concatenate([new, edge], -1)
    at = np.arange(s)
    start = np.maximum.accumulate(np.where(first, at, 0), -1)
    end = np.minimum.accumulate(np.where(last, at, s - 1)[..., ::-1], -1)[..., ::-1]
    out = np.empty(x.shape)
    np.put_along_axis(out, order, (start + end) / 2.0 + 1.0, -1)
    return out, np.count_nonzero(first, axis=-1)


def ranks(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties share the mean rank) of the valid values; NaN elsewhere."""
    if ok.all():  # no mask: x's own shape, which may be one row broadcast over a batch
        return _sorted(x)[0]
    xi, xj = x[..., :, None], x[..., None, :]
    okj = ok[..., None, :]
    less = ((xj < xi) & okj).sum(-1)
    equal = ((xj == xi) & okj).sum(-1)
    return np.where(ok, less + (equal + 1) / 2.0, np.nan)


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho along the last axis."""
    ok = np.isfinite(x) & np.isfinite(y)
    return pearson(ranks(x, ok), ranks(y, ok))


def pair_counts(
    x: np.ndarray, y: np.ndarray, origin: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Concordant, discordant and tied pairs along the last axis (each unordered pair of
    valid units once; pairs of copies of one origin left out)."""
    ok = np.isfinite(x) & np.isfinite(y)
    i, j = np.triu_indices(x.shape[-1], 1)
    if origin is None and ok.all():
        return _complete_pair_counts(x, y, i, j)
    pair = ok[..., i] & ok[..., j]
    if origin is not None:
        pair &= origin[..., i] != origin[..., j]
    with np.errstate(invalid="ignore"):
        sx, sy = np.sign(x[..., i] - x[..., j]), np.sign(y[..., i] - y[..., j])
        prod = sx * sy
        xt, yt = (sx == 0) & pair, (sy == 0) & pair
    tie_both = (xt & yt).sum(-1)
    return {
        "con": ((prod > 0) & pair).sum(-1),
        "dis": ((prod < 0) & pair).sum(-1),
        "tie_x": xt.sum(-1) - tie_both,
        "tie_y": yt.sum(-1) - tie_both,
        "tie_both": tie_both,
    }


def _complete_pair_counts(
    x: np.ndarray, y: np.ndarray, i: np.ndarray, j: np.ndarray
) -> dict[str, np.ndarray]:
    """``pair_counts`` without missing values or copies: comparisons, no float signs, and
    each side on its own shape (the people's one row is not repeated per permutation)."""
    gx, lx = x[..., i] > x[..., j], x[..., i] < x[..., j]
    gy, ly = y[..., i] > y[..., j], y[..., i] < y[..., j]
    xt, yt = ~(gx | lx), ~(gy | ly)
    con = np.count_nonzero((gx & gy) | (lx & ly), axis=-1)
    dis = np.count_nonzero((gx & ly) | (lx & gy), axis=-1)
    tie_both = np.count_nonzero(xt & yt, axis=-1)
    tie_x = np.count_nonzero(xt, axis=-1) - tie_both
    tie_y = np.count_nonzero(yt, axis=-1) - tie_both
    con, dis, tie_x, tie_y, tie_both = np.broadcast_arrays(con, dis, tie_x, tie_y, tie_both)
    return {"con": con, "dis": dis, "tie_x": tie_x, "tie_y": tie_y, "tie_both": tie_both}


def _distinct(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """How many distinct valid values along the last axis."""
    if ok.all():
        return _sorted(x)[1]
    k = x.shape[-1]
    lower = np.tril(np.ones((k, k), dtype=bool), -1)
    seen = ((x[..., :, None] == x[..., None, :]) & ok[..., None, :] & lower).any(-1)
    return (ok & ~seen).sum(-1)


def kendall(
    x: np.ndarray, y: np.ndarray, variant: str = "b", origin: np.ndarray | None = None
) -> np.ndarray:
    """Kendall's tau-b or tau-c along the last axis (NaN when one side is all ties)."""
    return _kendall(pair_counts(x, y, origin), x, y, variant)


def _kendall(c: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, variant: str) -> np.ndarray:
    tot = c["con"] + c["dis"] + c["tie_x"] + c["tie_y"] + c["tie_both"]
    xtie, ytie = c["tie_x"] + c["tie_both"], c["tie_y"] + c["tie_both"]
    s = (c["con"] - c["dis"]).astype(float)
    bad = (tot == 0) | (xtie == tot) | (ytie == tot)
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            tau = s / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
        else:
            ok = np.isfinite(x) & np.isfinite(y)
            n = ok.sum(-1)
            m = np.minimum(_distinct(x, ok), _distinct(y, ok))
            tau = 2 * s / (n.astype(float) ** 2 * (m - 1) / m)
    return np.where(bad, np.nan, tau)


def pairwise_accuracy(x: np.ndarray, y: np.ndarray, origin: np.ndarray | None = None) -> np.ndarray:
    """Share of pairs whose two differences have the same sign (a tie in both agrees)."""
    return _pairwise_accuracy(pair_counts(x, y, origin))


def _pairwise_accuracy(c: dict[str, np.ndarray]) -> np.ndarray:
    tot = c["con"] + c["dis"] + c["tie_x"] + c["tie_y"] + c["tie_both"]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, (c["con"] + c["tie_both"]) / tot, np.nan)


def several(
    x: np.ndarray, y: np.ndarray, names: tuple[str, ...], origin: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """The statistics ``names`` (of ``FUNCTIONS``) at once, the pair counts shared."""
    out: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] | None = None
    for name in names:
        if name in ("pearson", "spearman"):
            out[name] = FUNCTIONS[name](x, y)
            continue
        if counts is None:
            counts = pair_counts(x, y, origin)
        if name == "pairwise_accuracy":
            out[name] = _pairwise_accuracy(counts)
        else:
            out[name] = _kendall(counts, x, y, name[-1])
    return out


def acc_eq(x: np.ndarray, y: np.ndarray, epsilon: float) -> np.ndarray:
    """Pairwise accuracy with evaluator differences of at most ``epsilon`` as ties."""
    ok = np.isfinite(x) & np.isfinite(y)
    k = x.shape[-1]
    pair = ok[..., :, None] & ok[..., None, :] & np.triu(np.ones((k, k), dtype=bool), 1)
    dx = x[..., :, None] - x[..., None, :]
    dy = y[..., :, None] - y[..., None, :]
    with np.errstate(invalid="ignore"):
        yt = np.abs(dy) <= epsilon
        agree = np.where(yt, dx == 0, ((dx > 0) & (dy > 0)) | ((dx < 0) & (dy < 0)))
    tot = pair.sum((-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, (agree & pair).sum((-1, -2)) / tot, np.nan)


#: The batched statistics by name (acc_eq takes its threshold separately).
FUNCTIONS = {
    "pearson": lambda x, y, o=None: pearson(x, y),
    "spearman": lambda x, y, o=None: spearman(x, y),
    "kendall_b": lambda x, y, o=None: kendall(x, y, "b", o),
    "kendall_c": lambda x, y, o=None: kendall(x, y, "c", o),
    "pairwise_accuracy": pairwise_accuracy,
}
