"""Krippendorff's alpha at the levels of measurement that fit a variable.

alpha = 1 - D_o / D_e, with D_o the observed disagreement within units and D_e the
disagreement expected by chance, both computed from the coincidence matrix
o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1) over pairable units (m_u >= 2 values):
alpha = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck, where n_c are the
marginals of o, n their total and d the squared distance of the level (nominal: 0/1;
ordinal: rank-sum distance; interval: (c - k)^2; ratio: ((c - k) / (c + k))^2).
Units with fewer than two values are not pairable and do not count (Krippendorff 2011).
"""

from __future__ import annotations

import krippendorff
import numpy as np

from agreement.ratings import Ratings
from agreement.results import Stat

#: Above this many distinct values the package's (units x V x V) arrays get too large,
#: and the same formula is evaluated here from a sparse coincidence matrix.
PACKAGE_MAX_VALUES = 64
RATIO_MAX_VALUES = 4000
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _undefined_reason(r: Ratings, level: str) -> str | None:
    pairable = r.pairable
    if r.n_ratings == 0:
        return "no ratings"
    if len(r.annotators) < 2:
        return "only one rater"
    if not pairable.any():
        return "no pairable unit (no unit has two or more ratings)"
    used = r.counts[pairable].sum(axis=0) > 0
    if used.sum() < 2:
        return "only one value used in the pairable units: no variation to agree on"
    if level == "ratio" and (r.numeric_domain()[used] < 0).any():
        return "ratio level needs non-negative values"
    return None


def distance_matrix(domain: np.ndarray, level: str, n_v: np.ndarray) -> np.ndarray:
    """Squared distances d_ck between the values of ``domain`` (V,): shape (..., V, V),
    the batch axes of the value totals ``n_v`` (..., V) (the ordinal metric uses them).

    >>> distance_matrix(np.array([1.0, 2.0, 4.0]), "interval", np.ones(3)).tolist()
    [[0.0, 1.0, 9.0], [1.0, 0.0, 4.0], [9.0, 4.0, 0.0]]
    """
    v = np.asarray(domain, dtype=float)
    a, b = v[:, None], v[None, :]
    if level == "nominal":
        d = (a != b).astype(float)
    elif level == "interval":
        d = (a - b) ** 2
    elif level == "ratio":
        s = a + b
        d = np.divide(a - b, s, out=np.zeros_like(s), where=s != 0) ** 2
    elif level == "ordinal":
        n_v = np.asarray(n_v, dtype=float)
        cum = np.cumsum(n_v, axis=-1)
        lo = np.minimum(np.arange(len(v))[:, None], np.arange(len(v))[None, :])
        hi = np.maximum(np.arange(len(v))[:, None], np.arange(len(v))[None, :])
        between = cum[..., hi] - cum[..., lo] + n_v[..., lo]
        return (between - (n_v[..., :, None] + n_v[..., None, :]) / 2) ** 2
    else:
        raise ValueError(f"unknown level {level!r}")
    return np.broadcast_to(d, np.shape(n_v)[:-1] + d.shape)


def alpha_from_coincidences(o: np.ndarray, domain: np.ndarray, level: str) -> np.ndarray:
    """Alpha from coincidence matrices ``o`` of shape (..., V, V) over the value
    ``domain`` (V,): shape (...), NaN where D_e = 0. Two units rated (a, a) and (b, b),
    then (a, b) and (a, b): alpha 1, then 1 - (4 - 1) * 2 / 8.

    >>> o = np.array([[[2.0, 0.0], [0.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]])
    >>> alpha_from_coincidences(o, np.array([0.0, 1.0]), "nominal").tolist()
    [1.0, 0.25]
    """
    n_v = o.sum(axis=-1)
    n = n_v.sum(axis=-1)
    d = distance_matrix(domain, level, n_v)
    observed = (o * d).sum(axis=(-2, -1))
    expected = (n_v[..., :, None] * n_v[..., None, :] * d).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - (n - 1) * observed / expected


def coincidences(counts: np.ndarray) -> np.ndarray:
    """The (V, V) coincidence matrix of value counts ``counts`` (units, V); units with
    fewer than two values are left out (sparse product)."""
    from scipy import sparse  # a third of a second to import: only where it is used

    m = counts.sum(axis=1)
    keep = m >= 2
    c = sparse.csr_matrix(counts[keep].astype(float))
    w = sparse.diags(1.0 / (m[keep] - 1))
    o = (c.T @ w @ c).toarray()
    return o - np.diag(np.asarray((w @ c).sum(axis=0)).ravel())


def unit_coincidences(counts: np.ndarray) -> np.ndarray:
    """Per-unit contributions to the coincidence matrix, flattened: (units, V*V)."""
    m = counts.sum(axis=1).astype(float)
    c = counts.astype(float)
    o = c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(counts.shape[1])[None]
    o /= np.maximum(m - 1, 1)[:, None, None]
    o[m < 2] = 0
    return o.reshape(len(counts), -1)


def _interval_alpha(values: np.ndarray) -> float:
    """Interval alpha in closed form (sum over pairs of (a - b)^2 = 2(m sum v^2 - (sum v)^2))."""
    m = (~np.isnan(values)).sum(axis=1)
    s1, s2 = np.nansum(values, axis=1), np.nansum(values**2, axis=1)
    observed = (2 * (m * s2 - s1**2) / (m - 1)).sum()
    n = m.sum()
    expected = 2 * (n * s2.sum() - s1.sum() ** 2)
    return float(1 - (n - 1) * observed / expected) if expected > 0 else float("nan")


def krippendorff_alpha(r: Ratings, level: str) -> Stat:
    """Krippendorff's alpha of ``r`` at ``level``; n = number of pairable units.

    ``r`` is an (annotators, units) reliability matrix; the result one float. Krippendorff
    (2011), "Computing Krippendorff's Alpha-Reliability", the example with missing values
    (4 observers, 12 units) gives 0.743 nominal, 0.815 ordinal, 0.849 interval, 0.797 ratio:

    >>> from agreement.ratings import Ratings
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    ...         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    >>> r = Ratings.from_matrix(data)
    >>> [round(krippendorff_alpha(r, lv).value, 3) for lv in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    >>> krippendorff_alpha(r, "nominal").n  # unit 12 has a single value: not pairable
    11
    """
    n_pairable = int(r.pairable.sum())
    reason = _undefined_reason(r, level)
    if reason:
        return Stat.undefined(reason, n_pairable)
    counts = r.counts[r.pairable]
    domain = r.numeric_domain()
    used = counts.sum(axis=0) > 0
    counts, domain = counts[:, used], domain[used]
    if len(domain) <= PACKAGE_MAX_VALUES:
        value = krippendorff.alpha(
            value_counts=counts, value_domain=domain, level_of_measurement=level
        )
    elif level == "interval":
        value = _interval_alpha(r.value_matrix()[r.pairable])
    elif len(domain) > RATIO_MAX_VALUES:
        return Stat.undefined(
            f"{level} level not computed for more than {RATIO_MAX_VALUES} distinct values",
            n_pairable,
        )
    else:
        value = float(alpha_from_coincidences(coincidences(counts), domain, level))
    return Stat.of(value, n_pairable, "no variation in the pairable values")
