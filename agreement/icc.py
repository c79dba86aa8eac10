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
    n = the number of complete items."""
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
