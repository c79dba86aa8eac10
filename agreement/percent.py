"""Raw percent agreement and Gwet's AC1.

Percent agreement: over the items with two or more ratings, the mean share of agreeing
rater pairs, p_a = mean_i sum_k r_ik (r_ik - 1) / (r_i (r_i - 1)), where r_ik raters gave
item i category k and r_i raters rated it (for two raters: the share of items they agree
on). Values agree when they are identical.

Gwet's AC1 (Gwet 2008; Handbook of Inter-Rater Reliability, 4th ed.): AC1 =
(p_a - p_e) / (1 - p_e) with p_e = (1 / (q - 1)) sum_k pi_k (1 - pi_k), q the number of
categories and pi_k = mean_i r_ik / r_i over the items with at least one rating. Unlike
kappa it stays high when agreement is high and one category dominates (the kappa paradox).
"""

from __future__ import annotations

import numpy as np

from agreement.ratings import Ratings
from agreement.results import Stat


def _pair_agreement(r: Ratings) -> tuple[np.ndarray, int]:
    counts = r.counts[r.pairable].astype(float)
    m = counts.sum(axis=1)
    return (counts * (counts - 1)).sum(axis=1) / (m * (m - 1)), len(counts)


def percent_agreement(r: Ratings) -> Stat:
    """Mean share of agreeing rater pairs over items with two or more ratings.

    ``r`` is an (annotators, units) matrix; n = units with two or more ratings.

    >>> from agreement.ratings import Ratings
    >>> r = Ratings.from_matrix([[1, 1, 2, None], [1, 2, 2, 1], [1, 2, 2, None]])
    >>> s = percent_agreement(r)  # pairs agreeing: 3/3, 1/3, 3/3; unit 4 has one rating
    >>> round(s.value, 4), s.n
    (0.7778, 3)
    """
    if len(r.annotators) < 2:
        return Stat.undefined("only one rater")
    per_item, n = _pair_agreement(r)
    if n == 0:
        return Stat.undefined("no item has two or more ratings")
    return Stat.of(per_item.mean(), n)


def gwet_ac1(r: Ratings, n_categories: int | None = None) -> Stat:
    """Gwet's AC1 with q = ``n_categories`` (default: the size of the field's domain).

    ``r`` is an (annotators, units) matrix; n = units with two or more ratings. Gwet's
    (2008) high-agreement example, where Cohen's kappa is -0.02: two raters agree on 118
    positives, disagree on 5 + 2 items and share no negative; AC1 = 0.94.

    >>> from agreement.ratings import Ratings
    >>> a = [1] * 118 + [1] * 5 + [0] * 2
    >>> b = [1] * 118 + [0] * 5 + [1] * 2
    >>> r = Ratings.from_matrix([a, b], numeric=False)
    >>> s = gwet_ac1(r)
    >>> round(s.value, 2), s.n
    (0.94, 125)
    """
    if len(r.annotators) < 2:
        return Stat.undefined("only one rater")
    per_item, n = _pair_agreement(r)
    if n == 0:
        return Stat.undefined("no item has two or more ratings")
    q = n_categories or len(r.domain)
    if q < 2:
        return Stat.undefined("only one category on the scale", n)
    counts = r.counts[r.m >= 1].astype(float)
    pi = (counts / counts.sum(axis=1, keepdims=True)).mean(axis=0)
    p_e = (pi * (1 - pi)).sum() / (q - 1)
    p_a = per_item.mean()
    return Stat.of((p_a - p_e) / (1 - p_e), n)
