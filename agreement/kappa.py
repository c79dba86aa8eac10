"""Fleiss' kappa among many raters and Cohen's kappa between two.

Fleiss' kappa (Fleiss 1971): over N items each rated by the same number m of raters,
with n_ij raters putting item i in category j, P_i = (sum_j n_ij^2 - m) / (m (m - 1)),
P = mean_i P_i, p_j = sum_i n_ij / (N m), P_e = sum_j p_j^2 and
kappa = (P - P_e) / (1 - P_e). It needs a constant m, so it is computed over the items
that have the most common number of ratings (ties: the larger number), and the number
of items used is reported.

Cohen's kappa (Cohen 1960) between two raters on their shared items:
kappa = (p_o - p_e) / (1 - p_e), p_o the share of agreement and p_e the agreement
expected from the raters' marginals. Weighted kappa (Cohen 1968) uses agreement weights
w_ij = 1 - |i - j| / (k - 1) (linear) or 1 - (i - j)^2 / (k - 1)^2 (quadratic) over the
k ordered categories of the field's scale.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import numpy as np

from agreement.bootstrap import Draws, weighted_sums
from agreement.ratings import MISSING, Ratings
from agreement.results import Stat


def fleiss_items(r: Ratings) -> np.ndarray:
    """Mask of the items Fleiss' kappa uses: those with the most common rating count >= 2."""
    m = r.m
    rated = m[m >= 2]
    if rated.size == 0:
        return np.zeros(len(m), dtype=bool)
    values, freq = np.unique(rated, return_counts=True)
    mode = values[freq == freq.max()].max()
    return m == mode


def fleiss(r: Ratings) -> Stat:
    """Fleiss' kappa over the items with the most common number of raters."""
    if len(r.annotators) < 2:
        return Stat.undefined("only one rater")
    mask = fleiss_items(r)
    n_items = int(mask.sum())
    if n_items == 0:
        return Stat.undefined("no item has two or more ratings")
    # the (items x categories) counts, as statsmodels' aggregate_raters makes them
    table = r.counts[mask]
    if (table.sum(axis=0) > 0).sum() < 2:
        return Stat.undefined("only one category used: chance agreement is 1", n_items)
    return Stat.of(fleiss_kappa(table), n_items)


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' kappa of an items x categories count table, every item with the same number
    of ratings: ``statsmodels.stats.inter_rater.fleiss_kappa(table, method="fleiss")``
    with the same float operations in the same order (so the same value, which the tests
    check), without importing statsmodels (a second or so per CLI call).

    ``table`` is (items, categories). Fleiss (1971) as Wikipedia's "Fleiss' kappa" works it:
    10 subjects, 14 raters, 5 categories, kappa = 0.210.

    >>> table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...          [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...          [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> round(float(fleiss_kappa(np.array(table))), 3)
    0.21
    """
    t = 1.0 * np.asarray(table)
    n_total = t.sum()
    n_rat = t.sum(1).max()
    if n_total != t.shape[0] * n_rat:
        raise ValueError("every item needs the same number of ratings")
    p_cat = t.sum(0) / n_total
    p_rat = ((t * t).sum(1) - n_rat) / (n_rat * (n_rat - 1.0))
    p_mean = p_rat.mean()
    p_mean_exp = (p_cat * p_cat).sum()
    return (p_mean - p_mean_exp) / (1 - p_mean_exp)


def fleiss_from_table(table: np.ndarray, weights: np.ndarray | Draws | None = None) -> np.ndarray:
    """Fleiss' kappa of an items x categories table, for many item weightings at once.

    ``table`` is (N, q); ``weights`` (B, N, or :class:`~agreement.bootstrap.Draws`) holds
    how often each item is drawn in B bootstrap resamples; the result is (B,) (one value when ``weights`` is None).

    >>> t = np.array([[2, 0], [0, 2], [1, 1]])
    >>> fleiss_from_table(t, np.array([[1, 1, 1], [1, 1, 0]])).round(3).tolist()
    [0.333, 1.0]
    """
    t = np.asarray(table, dtype=float)
    m = t.sum(axis=1)
    p_i = ((t**2).sum(axis=1) - m) / (m * (m - 1))
    w = np.ones((1, len(t))) if weights is None else weights
    # one product reads the (B, N) weights once for every sum (three passes before)
    sums = weighted_sums(w, np.column_stack([np.ones(len(t)), p_i, t]))
    n = sums[:, 0]
    p_bar = sums[:, 1] / n
    p_j = sums[:, 2:] / (n * m[0])[:, None]
    p_e = (p_j**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (p_bar - p_e) / (1 - p_e)


def cohen(a: np.ndarray, b: np.ndarray, n_categories: int, weights: str | None = None) -> Stat:
    """Cohen's kappa of two code vectors ``a``, ``b`` (n,) (codes 0..k-1 on the field's
    ordered scale); n = items. Wikipedia's "Cohen's kappa" example: of 50 proposals both
    readers say yes to 20 and no to 15, A alone yes to 5, B alone yes to 10: kappa = 0.4.

    >>> a = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15)
    >>> b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    >>> s = cohen(a, b, 2)
    >>> round(s.value, 3), s.n
    (0.4, 50)
    """
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    n = len(a)
    if n == 0:
        return Stat.undefined("no shared items")
    k = n_categories
    table = np.bincount(a * k + b, minlength=k * k).reshape(k, k).astype(float)
    table /= n
    idx = np.arange(k)
    if weights is None:
        w = (idx[:, None] == idx[None, :]).astype(float)
    elif k < 2:
        return Stat.undefined("only one category on the scale", n)
    elif weights == "linear":
        w = 1 - np.abs(idx[:, None] - idx[None, :]) / (k - 1)
    elif weights == "quadratic":
        w = 1 - (idx[:, None] - idx[None, :]) ** 2 / (k - 1) ** 2
    else:
        raise ValueError(f"unknown weights {weights!r}")
    p_o = (w * table).sum()
    p_e = (w * np.outer(table.sum(axis=1), table.sum(axis=0))).sum()
    if np.isclose(p_e, 1.0):
        return Stat.undefined(
            "both raters used one and the same category only: chance agreement is 1", n
        )
    return Stat.of((p_o - p_e) / (1 - p_e), n)


def pair_overlap(r: Ratings) -> np.ndarray:
    """Annotators x annotators: how many items both rated (one matrix product)."""
    rated = (r.codes != MISSING).astype(np.float64)  # BLAS: exact for counts below 2**53
    return np.rint(rated.T @ rated).astype(np.int64)


def cohen_pairs(
    r: Ratings,
    weights: str | None = None,
    pairs: Iterable[tuple[int, int]] | None = None,
    overlap: np.ndarray | None = None,
) -> dict[str, Stat]:
    """Cohen's kappa for every annotator pair ``"A|B"`` (A < B) on their shared items
    (``pairs``: only these annotator index pairs; ``overlap``: :func:`pair_overlap` when
    already known). Pairs sharing no item are undefined without a look at their columns."""
    out: dict[str, Stat] = {}
    shared_n = pair_overlap(r) if overlap is None else overlap
    nothing = Stat.undefined("no shared items")
    for i, j in combinations(range(len(r.annotators)), 2) if pairs is None else pairs:
        key = f"{r.annotators[i]}|{r.annotators[j]}"
        if shared_n[i, j] == 0:
            out[key] = nothing
            continue
        a, b = r.codes[:, i], r.codes[:, j]
        shared = (a != MISSING) & (b != MISSING)
        out[key] = cohen(a[shared], b[shared], len(r.domain), weights)
    return out


def fleiss_coverage(r: Ratings) -> str:
    """Which items each Fleiss' kappa uses, and why some are left out of the modal one.

    The modal-count kappa keeps only the items with the most common number of ratings, so
    its n drops when one item gains a rater (it leaves the modal group); the
    missing-data form keeps every item with a rating.
    """
    mask = fleiss_items(r)
    rated = int((r.m >= 1).sum())
    if not mask.any():
        return (
            f"Fleiss kappa (modal-count items): no item has two or more ratings; all items: {rated}"
        )
    mode = int(r.m[mask][0])
    left = r.m[(~mask) & (r.m >= 1)]
    values, freq = np.unique(left, return_counts=True)
    dropped = ", ".join(
        f"{c} item{'s' if c != 1 else ''} with {v} rating{'s' if v != 1 else ''}"
        for v, c in zip(values.tolist(), freq.tolist(), strict=True)
    )
    text = f"Fleiss kappa (modal-count items) uses the {int(mask.sum())} items with {mode} ratings"
    text += f"; left out: {dropped}" if dropped else ""
    return text + f". Fleiss kappa (all items) uses all {rated} items with a rating."
