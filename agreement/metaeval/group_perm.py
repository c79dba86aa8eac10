"""The group level's cell-swap permutations without building each hybrid's pairs.

Within a group each system's cell holds one of two values (evaluator a's or b's z-score),
so every pairwise quantity of a hybrid (is j below i, equal to i, Kendall's signed
agreement) depends only on the two swap bits of the pair. Summed over j it is a bilinear
form of the swap mask ``u``: ``A + u*B + u@C + u*(u@D)``; one batched matrix product per
evaluator pair gives the ranks, ties and Kendall sums of both hybrids (the second hybrid
is the first with ``1 - u``). Pearson comes from sums linear in ``u``. Counts and ranks
are exact (small integers and halves in float32); the correlations may differ from a
direct computation in the last bits, which the p-value's 1e-12 tolerance absorbs.
"""

from __future__ import annotations

import numpy as np

from agreement.metaeval.group_linear import no_ties


def _pair_forms(v: np.ndarray, ok: np.ndarray, sx: np.ndarray) -> np.ndarray:
    """(3, G, S, S, 2, 2) contributions of j to i when u_i = p, u_j = q: below (L),
    equal (E), and for j > i Kendall's sign product with people (K)."""
    s = v.shape[-1]
    # diff[g, i, j, p, q] = v[p, g, i] - v[q, g, j]
    vi = np.moveaxis(v, 0, -1)[:, :, None, :, None]
    vj = np.moveaxis(v, 0, -1)[:, None, :, None, :]
    diff = vi - vj
    pair = (ok[:, :, None] & ok[:, None, :] & ~np.eye(s, dtype=bool))[..., None, None]
    below = (diff > 0) & pair
    equal = (diff == 0) & pair
    upper = np.triu(np.ones((s, s), dtype=bool), 1)[None, :, :, None, None]
    kend = np.where(pair & upper, sx[..., None, None] * np.sign(diff), 0.0)
    return np.stack([below, equal, kend]).astype(np.float32)


def _both(forms: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G, k, 3, S) sums over j of ``forms`` for mask ``u`` (G, k, S) and for ``1 - u``
    (float32: small integers and halves, exact)."""
    a = forms[..., 0, 0]
    b = forms[..., 1, 0] - a
    c = forms[..., 0, 1] - a
    d = forms[..., 1, 1] - forms[..., 1, 0] - forms[..., 0, 1] + a
    g, s = c.shape[1], c.shape[-1]
    # (G, k, S) @ (G, S, 6S): u_j weighted by c[i, j] and d[i, j] for every i
    cd = np.ascontiguousarray(np.concatenate([c, d]).transpose(1, 3, 0, 2).reshape(g, s, -1))
    uf = u.astype(np.float32)
    prod = np.einsum("gks,gsm->gkm", uf, cd).reshape(g, -1, 6, s)
    uc, ud = prod[:, :, :3], prod[:, :, 3:]

    def per_group(m: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(m.sum(-1).transpose(1, 0, 2)[:, None])  # (G, 1, 3, S)

    asum, bsum, csum, dsum = per_group(a), per_group(b), per_group(c), per_group(d)
    uk = uf[:, :, None, :]
    ud_u = uk * ud
    first = asum + uc + uk * bsum + ud_u
    # the other hybrid, every bit flipped: a + (1-u) b + (csum - uc) + (1-u)(dsum - ud)
    second = (asum + bsum + csum + dsum) - uc - ud - uk * (bsum + dsum) + ud_u
    return first, second


def group_cell_statistics(
    h: np.ndarray,
    za: np.ndarray,
    zb: np.ndarray,
    u: np.ndarray,
    rank_h: np.ndarray,
    distinct_h: np.ndarray,
    names: tuple[str, ...],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per-group statistics (k, G) of hybrid a (``where(u, zb, za)``) and hybrid b.

    ``h`` people (G, S) with NaN outside the cells, ``za``/``zb`` the evaluators'
    z-scores, ``rank_h`` the people's average ranks, ``distinct_h`` their distinct values.
    """
    ok = np.isfinite(h)
    okf = ok.astype(float)
    n = okf.sum(-1)
    hz = np.where(ok, h, 0.0)
    v = np.stack([np.where(ok, za, 0.0), np.where(ok, zb, 0.0)])
    sx = np.sign(hz[:, :, None] - hz[:, None, :])
    tot = n * (n - 1) / 2
    x_ties = (((sx == 0) & ok[:, :, None] & ok[:, None, :]).sum((1, 2)) - n) / 2
    ug = np.ascontiguousarray((u & ok[None]).transpose(1, 0, 2))  # (G, k, S)
    uu = ug.astype(float)
    if set(names) <= {"pearson"} and no_ties(za, zb, ok):
        # Pearson needs no pair forms, and without ties no hybrid is constant
        none = np.zeros((h.shape[0], 1, 3, h.shape[1]), dtype=np.float32)
        sides = (none, none)
    else:
        sides = _both(_pair_forms(v, ok, sx), ug)
    okg = ok[:, None, :]  # against (G, k, S)
    tot, x_ties, n = tot[:, None], x_ties[:, None], n[:, None]

    def per_perm(v: np.ndarray) -> np.ndarray:  # (G, k) -> (k, G), rows contiguous
        return np.ascontiguousarray(v.T)

    out: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] = ({}, {})
    for side, (res, pf) in enumerate(zip(out, sides, strict=True)):
        # rows of cells outside the group are zero in every form, hence here
        below, equal, kend = pf[:, :, 0], pf[:, :, 1], pf[:, :, 2]  # each (G, k, S)
        y_ties = equal.sum(-1, dtype=float) / 2
        bad = (tot == 0) | (x_ties == tot) | (y_ties == tot)
        y0, y1 = (v[0], v[1]) if side == 0 else (v[1], v[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            if "pearson" in names:
                hc = np.where(ok, hz - (hz.sum(-1) / n[:, 0])[:, None], 0.0)
                step = y1 - y0
                sxy = (hc * y0).sum(-1)[:, None] + np.einsum("gks,gs->gk", uu, hc * step)
                sy = y0.sum(-1)[:, None] + np.einsum("gks,gs->gk", uu, step)
                sq = y1 * y1 - y0 * y0
                syy = (y0 * y0).sum(-1)[:, None] + np.einsum("gks,gs->gk", uu, sq)
                r = sxy / np.sqrt((hc * hc).sum(-1)[:, None] * (syy - sy * sy / n))
                res["pearson"] = per_perm(np.where(bad, np.nan, np.clip(r, -1.0, 1.0)))
            if "spearman" in names:
                rh = np.where(ok, rank_h, 0.0)
                rhc = np.where(ok, rh - (rh.sum(-1) / n[:, 0])[:, None], 0.0)
                ry = np.where(okg, 1.0 + below + equal / 2, 0.0)
                sy = n * (n + 1) / 2
                sxy = np.einsum("gks,gs->gk", ry.astype(float), rhc)
                syy = (ry * ry).sum(-1, dtype=float)
                r = sxy / np.sqrt((rhc * rhc).sum(-1)[:, None] * (syy - sy * sy / n))
                res["spearman"] = per_perm(np.where(bad, np.nan, np.clip(r, -1.0, 1.0)))
            s = kend.sum(-1, dtype=float)
            if "kendall_b" in names:
                tau = s / np.sqrt((tot - x_ties) * (tot - y_ties))
                res["kendall_b"] = per_perm(np.where(bad, np.nan, tau))
            if "kendall_c" in names:
                distinct_y = np.rint(np.where(okg, 1.0 / (1.0 + equal), 0.0).sum(-1, dtype=float))
                m = np.minimum(distinct_h[:, None], distinct_y)
                res["kendall_c"] = per_perm(np.where(bad, np.nan, 2 * s / (n**2 * (m - 1) / m)))
    return out
