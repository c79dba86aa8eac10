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

from agreement.bootstrap import draw_counts, percentile_ci
from agreement.correlation import weighted_pearson
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
        values = r.value_matrix()[order]
        draws = draw_counts(len(order), n_resamples, seed)
        per_pair = []
        for i, j in combinations(range(len(r.annotators)), 2):
            shared = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
            if shared.sum() >= 2:
                per_pair.append(
                    weighted_pearson(values[shared, i], values[shared, j], draws[:, shared])
                )
        if per_pair:
            stacked = np.vstack(per_pair)
            ok = np.isfinite(stacked)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = np.where(ok, stacked, 0).sum(axis=0) / ok.sum(axis=0)
            ci, _ = percentile_ci(means)
    return Stat(value, n, None, ci, extra=extra)
