"""Mean pairwise Pearson correlation among annotators (continuous fields), as Potato
reports it: Pearson's r of every annotator pair on the items both rated, averaged over
the pairs where r is defined (two or more shared items, neither side constant).

The 95% interval is the seeded percentile bootstrap over items: each resample draws items,
each pair's r is recomputed on its drawn shared items (weights = draw counts) and the
defined pairs are averaged.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from agreement.bootstrap import Draws, draws, percentile_ci, weighted_sums
from agreement.ratings import Ratings
from agreement.results import Stat


def _pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2:
        return None
    dx, dy = x - x.mean(), y - y.mean()
    den = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    return float((dx * dy).sum() / den) if den > 0 else None


def pearson_pairs(r: Ratings) -> tuple[dict[str, float | None], dict[str, int]]:
    """Pearson's r and the number of shared items of every annotator pair ``"A|B"``."""
    values = r.value_matrix()
    rs: dict[str, float | None] = {}
    ns: dict[str, int] = {}
    for i, j in combinations(range(len(r.annotators)), 2):
        shared = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
        key = f"{r.annotators[i]}|{r.annotators[j]}"
        rs[key] = _pearson(values[shared, i], values[shared, j])
        ns[key] = int(shared.sum())
    return rs, ns


def _resampled_pairs(values: np.ndarray, w: np.ndarray | Draws) -> np.ndarray:
    """(pairs, B) Pearson r of every pair sharing two or more items, in every resample.

    Each pair's six weighted moments are columns that are zero off the pair's shared
    items; one product of the (B, n) draw counts ``w`` with every pair's columns reads the
    draws once (a chunk of resamples at a time for :class:`Draws`).
    """
    cols, scales = [], []
    for i, j in combinations(range(values.shape[1]), 2):
        shared = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
        if shared.sum() < 2:
            continue
        x = np.where(shared, values[:, i] - values[shared, i].mean(), 0.0)
        y = np.where(shared, values[:, j] - values[shared, j].mean(), 0.0)
        cols += [shared.astype(float), x, y, x * x, y * y, x * y]
        scales.append(max(np.abs(x).max(), 1e-300) ** 2 * max(np.abs(y).max(), 1e-300) ** 2)
    if not scales:
        return np.zeros((0, len(w)))
    moments = weighted_sums(w, np.column_stack(cols)).T.reshape(len(scales), 6, len(w))
    n, sx, sy, sxx, syy, sxy = moments.transpose(1, 0, 2)
    var = (n * sxx - sx**2) * (n * syy - sy**2)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (n * sxy - sx * sy) / np.sqrt(var)
    # a resample whose shared items are all alike has no correlation
    r[var <= 1e-12 * np.maximum(n, 1) ** 2 * np.array(scales)[:, None]] = np.nan
    return r


def mean_pairwise_pearson(r: Ratings, n_resamples: int, seed: int) -> Stat:
    """The mean of the defined pairwise r, n = items rated by two or more annotators; the
    pairs and their n ride along as ``pearson_pairs`` / ``pearson_pairs_n``."""
    rs, ns = pearson_pairs(r)
    extra = {"pearson_pairs": rs, "pearson_pairs_n": ns}
    n = int(r.pairable.sum())
    defined = [v for v in rs.values() if v is not None]
    if len(r.annotators) < 2:
        return Stat(None, n, "only one rater", extra=extra)
    if not defined:
        return Stat(
            None, n, "no annotator pair shares two or more items with varying values", extra=extra
        )
    value = float(np.mean(defined))
    ci = None
    if n_resamples > 0 and n >= 2:
        order = r.unit_order()
        w = draws(len(order), n_resamples, seed)
        per_pair = _resampled_pairs(r.value_matrix()[order], w)
        if per_pair.size:
            ok = np.isfinite(per_pair)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = np.where(ok, per_pair, 0).sum(axis=0) / ok.sum(axis=0)
            ci, _ = percentile_ci(means)
    return Stat(value, n, None, ci, extra=extra)
