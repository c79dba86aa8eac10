"""Intraclass correlations through pingouin's ``intraclass_corr`` (Shrout & Fleiss 1979;
McGraw & Wong 1996).

The six forms: ICC(1,1) one-way random, ICC(A,1) = ICC(2,1) two-way random absolute
agreement, ICC(C,1) = ICC(3,1) two-way mixed consistency, and their k-rater (mean of k
ratings) forms. pingouin fits a two-way ANOVA and needs complete, balanced data: with
``nan_policy="omit"`` it drops every item that some annotator did not rate (listwise
deletion), so ``n`` is the number of items rated by every annotator. The 95% intervals
are pingouin's F-distribution intervals, taken unrounded.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pandas as pd

from agreement.ratings import Ratings
from agreement.results import Stat

#: (JSON key suffix, pingouin's row name) of the six forms.
FORMS = (
    ("1_1", "ICC(1,1)"),
    ("a_1", "ICC(A,1)"),
    ("c_1", "ICC(C,1)"),
    ("1_k", "ICC(1,k)"),
    ("a_k", "ICC(A,k)"),
    ("c_k", "ICC(C,k)"),
)
_OPTIONS_LOCK = threading.Lock()  # pingouin's rounding option is process-global


def complete_items(r: Ratings) -> np.ndarray:
    """Mask of the units every annotator rated (the ones pingouin keeps)."""
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
    k = values.shape[1]
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n), k),
            "rater": np.tile(np.arange(k), n),
            "score": values.ravel(),
        }
    )
    import pingouin  # heavy (matplotlib, seaborn): imported when an ICC is computed

    with _OPTIONS_LOCK:
        old = pingouin.options.get("round.column.CI95")
        pingouin.options["round.column.CI95"] = None
        try:
            with warnings.catch_warnings():
                # pingouin 0.7 calls a pandas API that pandas 3.1 deprecates (dropna inplace)
                warnings.simplefilter("ignore")
                table = pingouin.intraclass_corr(
                    frame, targets="item", raters="rater", ratings="score", nan_policy="omit"
                ).set_index("Type")
        finally:
            pingouin.options["round.column.CI95"] = old
    out = {}
    for suffix, name in FORMS:
        value = float(table.at[name, "ICC"])
        lo, hi = (float(x) for x in table.at[name, "CI95"])
        stat = Stat.of(value, n, "undefined: zero between-item variance")
        ci = (lo, hi) if stat.value is not None and np.isfinite([lo, hi]).all() else None
        out[suffix] = Stat(stat.value, n, stat.reason, ci)
    return out
