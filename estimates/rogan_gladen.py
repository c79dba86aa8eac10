"""The judge's positive rate corrected by its measured sensitivity and specificity.

Rogan and Gladen (1978): p = (q + sp - 1) / (se + sp - 1), where q is the judge's rate of
1s on every judged item and se, sp are measured on the items people labelled (the human
majority is the truth). The 95 % interval is the delta method's (Greenland 1988),
treating q, se and sp as independent binomial proportions:
Var(p) = (Var(q) + p^2 Var(se) + (1 - p)^2 Var(sp)) / (se + sp - 1)^2; the estimate and
the interval are clipped to [0, 1].
"""

from __future__ import annotations

import numpy as np

from estimates.intervals import Estimate, Z, missing
from estimates.ppi import MIN_LABELLED

#: A judge score at or above this counts as a 1 (scores may be probabilities).
THRESHOLD = 0.5


def decisions(scores: np.ndarray) -> np.ndarray:
    """0/1 decisions from judge scores."""
    return (np.asarray(scores, float) >= THRESHOLD).astype(float)


def corrected_rate(
    judge_all: np.ndarray, human: np.ndarray, judge_on_human: np.ndarray
) -> Estimate:
    """Rogan-Gladen rate from the judge's scores on all judged items and the paired
    (human majority, judge score) values of the items people labelled."""
    q_all = decisions(judge_all)
    truth = np.asarray(human, float) >= THRESHOLD
    said = decisions(judge_on_human) == 1
    n_pos, n_neg, n_all = int(truth.sum()), int((~truth).sum()), len(q_all)
    counts = {"n": len(truth), "n_positive": n_pos, "n_negative": n_neg, "n_judged": n_all}
    if len(truth) < MIN_LABELLED:
        return missing("corrected", f"needs at least {MIN_LABELLED} human-labelled items", **counts)
    if n_pos == 0 or n_neg == 0 or n_all == 0:
        return missing(
            "corrected", "needs human-labelled items of both classes and judged items", **counts
        )
    sens = float(said[truth].mean())
    spec = float((~said[~truth]).mean())
    j = sens + spec - 1
    if j <= 0:
        return missing(
            "corrected",
            "the judge is no better than chance on the labelled items (se + sp <= 1)",
            sensitivity=sens,
            specificity=spec,
            **counts,
        )
    q = float(q_all.mean())
    p = (q + spec - 1) / j
    var = (
        q * (1 - q) / n_all
        + p**2 * sens * (1 - sens) / n_pos
        + (1 - p) ** 2 * spec * (1 - spec) / n_neg
    ) / j**2
    se = float(np.sqrt(var))
    lo, hi = max(0.0, p - Z * se), min(1.0, p + Z * se)
    return Estimate(
        "corrected",
        float(min(1.0, max(0.0, p))),
        (lo, hi),
        se,
        extra={"sensitivity": sens, "specificity": spec, "judge_rate": q, "raw": p, **counts},
    )
