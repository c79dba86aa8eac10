"""The group level's rank statistics under cell swaps when no two scores of a group tie.

If, within every group, the 2n z-scores of evaluators a and b are all distinct, neither
hybrid has ties, so the spreads of its ranks (Spearman) and its tie counts (Kendall's
tau-b and tau-c denominators) do not depend on the swap mask. The numerators' difference
between hybrid a (``where(u, zb, za)``) and hybrid b (every bit flipped) is then linear
in the mask ``u``:

- Kendall: a pair's sign ``sign(v_p[i] - v_q[j])`` for bits p, q is bilinear,
  ``A + B p + C q + D p q``; flipping both bits and subtracting cancels ``pq``, leaving
  ``-(B + C + D) + (2B + D) p + (2C + D) q``;
- Spearman: with both evaluators' scores sorted together (weights w, the people's centred
  ranks), sum(rank x w) of a minus b is ``sum_p w_p (r_p - (1 - pick_p) p)`` where r_p
  counts a's picks up to position p, and ``sum_p w_p r_p`` is ``sum_q pick_q`` times the
  weights from q on.

So every permutation's difference of the group means is one matrix-vector product of
the mask. ``group_perm`` handles the groups with ties.
"""

from __future__ import annotations

import numpy as np


def no_ties(za: np.ndarray, zb: np.ndarray, ok: np.ndarray) -> bool:
    """Whether every group's (row's) valid scores of both evaluators are all distinct."""
    both = np.concatenate([np.where(ok, za, np.inf), np.where(ok, zb, np.inf)], -1)
    srt = np.sort(both, -1)
    return not bool((np.isfinite(srt[:, 1:]) & (srt[:, 1:] == srt[:, :-1])).any())


def _kendall_terms(za: np.ndarray, zb: np.ndarray, ok: np.ndarray, sx: np.ndarray):
    """(G,) constant and (G, S) per-cell coefficient of hybrid a's minus hybrid b's
    Kendall sum (concordant minus discordant pairs)."""
    s = za.shape[-1]
    v = (za, zb)

    def sign(p: int, q: int) -> np.ndarray:
        return np.sign(v[p][:, :, None] - v[q][:, None, :])

    s00, s10, s01, s11 = sign(0, 0), sign(1, 0), sign(0, 1), sign(1, 1)
    b, c, d = s10 - s00, s01 - s00, s11 - s10 - s01 + s00
    upper = np.triu(np.ones((s, s), dtype=bool), 1)
    w = np.where(upper & ok[:, :, None] & ok[:, None, :], sx, 0.0)
    const = -(w * (b + c + d)).sum((1, 2))
    coef = (w * (2 * b + d)).sum(2) + (w * (2 * c + d)).sum(1)
    return const, coef


def _spearman_terms(za: np.ndarray, zb: np.ndarray, ok: np.ndarray, rank_h: np.ndarray):
    """(G,) constant, (G, S) per-cell coefficient and (G,) centred rank sum of squares
    of the people, for sum(rank x centred people's rank) of hybrid a minus hybrid b."""
    g, s = za.shape
    n = ok.sum(-1)
    rh = np.where(ok, rank_h, 0.0)
    rhc = np.where(ok, rh - (rh.sum(-1) / np.maximum(n, 1))[:, None], 0.0)
    both = np.concatenate([np.where(ok, za, np.inf), np.where(ok, zb, np.inf)], -1)
    order = np.argsort(both, -1, kind="stable")  # the missing cells sort last, weight 0
    w = np.take_along_axis(np.concatenate([rhc, rhc], -1), order, -1)
    pos = np.arange(1, 2 * s + 1, dtype=float)
    per_position = np.cumsum(w[:, ::-1], -1)[:, ::-1] + w * pos
    v = np.empty_like(per_position)
    np.put_along_axis(v, order, per_position, -1)
    va, vb = v[:, :s], v[:, s:]
    const = va.sum(-1) - w @ pos
    return const, np.where(ok, vb - va, 0.0), (rhc * rhc).sum(-1)


def group_linear_differences(
    h: np.ndarray,
    za: np.ndarray,
    zb: np.ndarray,
    u: np.ndarray,
    rank_h: np.ndarray,
    distinct_h: np.ndarray,
    names: tuple[str, ...],
    uf: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """(k,) differences (hybrid a minus b) of the group means of Spearman, tau-b and
    tau-c; the caller checked ``no_ties``. ``h`` people (G, S), NaN outside the cells;
    ``u`` the (k, G, S) swap mask (``uf``: ``u & ok`` as floats, if the caller has it);
    a group where people give one value is left out of both means, as it is of the
    figure's."""
    ok = np.isfinite(h)
    n = ok.sum(-1).astype(float)
    hz = np.where(ok, h, 0.0)
    za, zb = np.where(ok, za, 0.0), np.where(ok, zb, 0.0)
    pair = ok[:, :, None] & ok[:, None, :]
    sx = np.sign(hz[:, :, None] - hz[:, None, :])
    tot = n * (n - 1) / 2
    x_ties = (((sx == 0) & pair).sum((1, 2)) - n) / 2
    defined = (tot > 0) & (x_ties < tot)
    n_def = max(int(defined.sum()), 1)
    terms: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    if "spearman" in names:
        const, coef, sxx = _spearman_terms(za, zb, ok, rank_h)
        terms["spearman"] = (const, coef, np.sqrt(sxx * n * (n * n - 1) / 12.0))
    if {"kendall_b", "kendall_c"} & set(names):
        const, coef = _kendall_terms(za, zb, ok, sx)
        if "kendall_b" in names:
            terms["kendall_b"] = (const, coef, np.sqrt((tot - x_ties) * tot))
        if "kendall_c" in names:
            m = np.minimum(distinct_h, n)  # a hybrid without ties has n distinct values
            with np.errstate(invalid="ignore", divide="ignore"):
                terms["kendall_c"] = (const, coef, n**2 * (m - 1) / m / 2)
    if not terms:
        return {}
    consts, columns = [], []
    for const, coef, scale in terms.values():
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(defined, 1.0 / scale, 0.0)
        consts.append(float((const * f).sum()))
        columns.append((coef * f[:, None]).ravel())
    # every statistic from one pass over the mask
    if uf is None:
        uf = (u & ok[None]).astype(float)
    moved = uf.reshape(u.shape[0], -1) @ np.stack(columns, 1)
    return {name: (consts[c] + moved[:, c]) / n_def for c, name in enumerate(terms)}


def group_pearson_differences(
    h: np.ndarray, za: np.ndarray, zb: np.ndarray, u: np.ndarray, uf: np.ndarray | None = None
):
    """(k,) difference (hybrid a minus b) of the group mean of Pearson's r; the caller
    checked ``no_ties``, so no hybrid is constant in a group. Every sum a hybrid's r needs
    is linear in the mask; hybrid b's are both evaluators' totals minus a's."""
    ok = np.isfinite(h)
    n = ok.sum(-1).astype(float)
    hz = np.where(ok, h, 0.0)
    hc = np.where(ok, hz - (hz.sum(-1) / np.maximum(n, 1))[:, None], 0.0)
    sxx = (hc * hc).sum(-1)
    defined = (n >= 2) & (sxx > 0) & ~_constant(h, ok)
    y0, y1 = np.where(ok, za, 0.0), np.where(ok, zb, 0.0)
    step = y1 - y0
    if uf is None:
        uf = (u & ok[None]).astype(float)
    # optimize: a BLAS product per group, over twice as fast as the plain loop (the sums'
    # order moves the last bit at most; p-values count nulls against delta - 1e-12)
    terms = np.stack([hc * step, step, y1 * y1 - y0 * y0])
    lin = np.einsum("kgs,cgs->ckg", uf, terms, optimize=True)
    base = np.stack([(hc * y0).sum(-1), y0.sum(-1), (y0 * y0).sum(-1)])[:, None, :]
    total = np.stack([(hc * (y0 + y1)).sum(-1), (y0 + y1).sum(-1), (y0 * y0 + y1 * y1).sum(-1)])
    a = lin
    a += base
    b = total[:, None, :] - a

    def r(s: np.ndarray) -> np.ndarray:  # in place: the same operations, fewer arrays
        den = s[1] * s[1]
        den /= n
        np.subtract(s[2], den, out=den)
        den *= sxx
        np.sqrt(den, out=den)
        np.divide(s[0], den, out=den)
        return np.clip(den, -1.0, 1.0, out=den)

    with np.errstate(invalid="ignore", divide="ignore"):
        d = r(a)
        d -= r(b)
    d[:, ~defined] = 0.0
    return d.sum(-1) / max(int(defined.sum()), 1)


def _constant(h: np.ndarray, ok: np.ndarray) -> np.ndarray:
    lo = np.where(ok, h, np.inf).min(-1)
    hi = np.where(ok, h, -np.inf).max(-1)
    return ~(hi > lo)
