"""Intraclass correlations from the two-way ANOVA mean squares, in numpy (Shrout & Fleiss
1979; McGraw & Wong 1996), as pingouin's ``intraclass_corr`` computes them.

The six forms: ICC(1,1) one-way random, ICC(A,1) = ICC(2,1) two-way random absolute
agreement, ICC(C,1) = ICC(3,1) two-way mixed consistency, and their k-rater (mean of k
ratings) forms. The ANOVA needs complete, balanced data: every item that some annotator
did not rate is dropped (listwise deletion, pingouin's ``nan_policy="omit"``), so ``n``
is the number of items rated by every annotator. With one rating per item and rater:

- MSR (rows, items) = k * sum_i (mean_i - mean)^2 / (n - 1);
- MSC (columns, raters) = n * sum_j (mean_j - mean)^2 / (k - 1);
- MSE = (SS_total - SS_rows - SS_columns) / ((n - 1)(k - 1));
- MSW (within items) = (SS_columns + SS_error) / (n (k - 1));

ICC(1,1) = (MSR - MSW) / (MSR + (k-1) MSW), ICC(A,1) = (MSR - MSE) / (MSR + (k-1) MSE +
k (MSC - MSE) / n), ICC(C,1) = (MSR - MSE) / (MSR + (k-1) MSE); the k forms divide by
MSR, MSR + (MSC - MSE) / n and MSR. The 95% intervals are the F-distribution intervals
of McGraw & Wong (1996), ICC(A,*) with Satterthwaite's degrees of freedom, as pingouin
gives them (the tests compare the two on random data with missing ratings). numpy and
scipy.special only: pingouin pulls in matplotlib, a second of start-up per process.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agreement.ratings import Ratings
from agreement.results import Stat

#: (JSON key suffix, name) of the six forms (pingouin's row names).
FORMS = (
    ("1_1", "ICC(1,1)"),
    ("a_1", "ICC(A,1)"),
    ("c_1", "ICC(C,1)"),
    ("1_k", "ICC(1,k)"),
    ("a_k", "ICC(A,k)"),
    ("c_k", "ICC(C,k)"),
)


def complete_items(r: Ratings) -> np.ndarray:
    """Mask of the units every annotator rated (the ones the ANOVA keeps)."""
    return (r.codes >= 0).all(axis=1)


def _undefined(r: Ratings, n: int) -> str | None:
    if len(r.annotators) < 2:
        return "only one rater"
    if n < 2:
        return (
            f"{n} item(s) rated by all {len(r.annotators)} annotators; ICC needs complete "
            "data on two or more items (pingouin drops items with a missing rating)"
        )
    if n * len(r.annotators) < 5:
        return f"{n} complete items x {len(r.annotators)} raters: pingouin's ANOVA needs 5 ratings"
    return None


def icc_forms(r: Ratings) -> dict[str, Stat]:
    """The six ICC forms of ``r`` keyed by :data:`FORMS`' suffixes, each with its 95% CI and
    n = the number of complete items.

    ``r`` is an (annotators, units) matrix; only complete units count. Shrout & Fleiss
    (1979), Table 2 (6 targets, 4 judges): ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71,
    ICC(1,4) = .44, ICC(2,4) = .62, ICC(3,4) = .91.

    >>> from agreement.ratings import Ratings
    >>> judges = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]]
    >>> forms = icc_forms(Ratings.from_matrix(judges))
    >>> {k: round(s.value, 2) for k, s in forms.items()}
    {'1_1': 0.17, 'a_1': 0.29, 'c_1': 0.71, '1_k': 0.44, 'a_k': 0.62, 'c_k': 0.91}
    >>> forms["c_1"].n
    6
    """
    keep = complete_items(r)
    n = int(keep.sum())
    reason = _undefined(r, n)
    if reason:
        return {suffix: Stat.undefined(reason, n) for suffix, _ in FORMS}
    values = r.value_matrix()[keep]
    if np.ptp(values) == 0:
        return {
            suffix: Stat.undefined("every rating is the same: no variance", n)
            for suffix, _ in FORMS
        }
    forms = _forms(values)
    out = {}
    for suffix, _ in FORMS:
        value, (lo, hi) = forms[suffix]
        stat = Stat.of(value, n, "undefined: zero between-item variance")
        ci = (lo, hi) if stat.value is not None and np.isfinite([lo, hi]).all() else None
        out[suffix] = Stat(stat.value, n, stat.reason, ci)
    return out


@lru_cache(maxsize=256)
def _f_upper(dfn: float, dfd: float) -> float:
    """The 97.5th percentile of the F(dfn, dfd) distribution (kept: each field of a study
    asks for the same few, at about 10 ms each with 40,000 degrees of freedom)."""
    from scipy.special import fdtri  # light next to scipy.stats (same function underneath)

    return float(fdtri(dfn, dfd, 0.975))


def _forms(values: np.ndarray) -> dict[str, tuple[float, tuple[float, float]]]:
    """(ICC, 95% CI) of each form of a complete (items, raters) matrix."""
    n, k = values.shape
    mean = values.mean()
    ss_total = ((values - mean) ** 2).sum()
    ss_rows = ((values.mean(axis=1) - mean) ** 2 * k).sum()
    ss_cols = ((values.mean(axis=0) - mean) ** 2 * n).sum()
    ss_error = ss_total - (ss_rows + ss_cols)
    df_rows, df_cols, df_error = n - 1, k - 1, (n - 1) * (k - 1)
    msb, msj, mse = ss_rows / df_rows, ss_cols / df_cols, ss_error / df_error
    msw = (ss_cols + ss_error) / (df_cols + df_error)
    with np.errstate(divide="ignore", invalid="ignore"):
        icc1 = (msb - msw) / (msb + (k - 1) * msw)
        icc2 = (msb - mse) / (msb + (k - 1) * mse + k * (msj - mse) / n)
        icc3 = (msb - mse) / (msb + (k - 1) * mse)
        icc1k = (msb - msw) / msb
        icc2k = (msb - mse) / (msb + (msj - mse) / n)
        icc3k = (msb - mse) / msb
        df_within = n * (k - 1)
        f1 = msb / msw
        f1l = f1 / _f_upper(df_rows, df_within)
        f1u = f1 * _f_upper(df_within, df_rows)
        f3 = msb / mse
        f3l = f3 / _f_upper(df_rows, df_error)
        f3u = f3 * _f_upper(df_error, df_rows)
        # ICC(A,1): Satterthwaite's degrees of freedom (McGraw & Wong 1996, Table 7)
        fj = msj / mse
        vn = df_error * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        vd = df_rows * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = vn / vd
        f2u, f2l = _f_upper(n - 1, v), _f_upper(v, n - 1)
        l2 = n * (msb - f2u * mse) / (f2u * (k * msj + (k * n - k - n) * mse) + n * msb)
        u2 = n * (f2l * msb - mse) / (k * msj + (k * n - k - n) * mse + n * f2l * msb)
        return {
            "1_1": (icc1, ((f1l - 1) / (f1l + (k - 1)), (f1u - 1) / (f1u + (k - 1)))),
            "a_1": (icc2, (l2, u2)),
            "c_1": (icc3, ((f3l - 1) / (f3l + (k - 1)), (f3u - 1) / (f3u + (k - 1)))),
            "1_k": (icc1k, (1 - 1 / f1l, 1 - 1 / f1u)),
            "a_k": (icc2k, (l2 * k / (1 + l2 * (k - 1)), u2 * k / (1 + u2 * (k - 1)))),
            "c_k": (icc3k, (1 - 1 / f3l, 1 - 1 / f3u)),
        }
