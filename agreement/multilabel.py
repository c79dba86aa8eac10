"""Agreement on multi-label questions: alpha with the MASI distance and per-label alpha.

MASI (Passonneau 2006) is computed as NLTK's ``masi_distance`` defines it:
1 - |A & B| / |A | B| * m, with m = 1 for equal sets, 2/3 when one contains the other,
1/3 when they overlap and 0 otherwise (two empty sets: distance 0). Alpha uses it
unsquared, as ``nltk.metrics.agreement.AnnotationTask(distance=masi_distance).alpha()``.
Per-label alpha asks, for each declared label, whether each annotator chose it (nominal
alpha on yes / no); the headline is their mean over the labels where it is defined.
Values reach the ratings as JSON lists (see :mod:`agreement.question_units`).
"""

from __future__ import annotations

import json

import numpy as np

from agreement.measures import Measure, MeasureView
from agreement.results import Stat
from agreement.statistics import StatContext, declare
from agreement.unit_context import alpha_with_distance, context_of

MULTI = frozenset({"multi_label"})


def masi_distance(a: frozenset[str], b: frozenset[str]) -> float:
    """NLTK's MASI distance between two label sets (0 for two empty sets)."""
    union = len(a | b)
    if union == 0:
        return 0.0
    inter = len(a & b)
    if len(a) == len(b) == inter:
        m = 1.0
    elif inter == min(len(a), len(b)):
        m = 2 / 3
    elif inter > 0:
        m = 1 / 3
    else:
        m = 0.0
    return 1 - inter / union * m


def _sets(domain: tuple) -> list[frozenset[str]]:
    return [frozenset(json.loads(v)) for v in domain]


def masi_alpha(ctx: StatContext) -> Stat:
    """Alpha over the label sets with the MASI distance; n = units with 2+ answers."""
    r = ctx.ratings
    sets = _sets(r.domain)
    d = np.array([[masi_distance(a, b) for b in sets] for a in sets])
    value, reason = alpha_with_distance(r.counts, d)
    n = int(r.pairable.sum())
    return Stat(value, n, reason)


def label_alphas(ctx: StatContext) -> Stat:
    """Nominal alpha of "chose this label" for every label; headline = their mean."""
    r = ctx.ratings
    sets = _sets(r.domain)
    labels = list(context_of(r).get("labels") or sorted(set().union(*sets)))
    per: dict[str, float | None] = {}
    reasons: dict[str, str] = {}
    for label in labels:
        has = np.array([label in s for s in sets], dtype=bool)
        yes = r.counts[:, has].sum(axis=1)
        counts = np.stack([r.m - yes, yes], axis=1)
        value, why = alpha_with_distance(counts, 1.0 - np.eye(2))
        per[label] = value
        if why:
            reasons[label] = why
    defined = [v for v in per.values() if v is not None]
    extra = {"label_alpha_by_label": per, "label_alpha_reasons": reasons}
    if not defined:
        return Stat(None, int(r.pairable.sum()), "no label has a defined alpha", extra=extra)
    return Stat(float(np.mean(defined)), int(r.pairable.sum()), extra=extra)


MASI_ALPHA = declare(
    Measure(
        "masi_alpha",
        MeasureView(
            "alpha MASI",
            "Krippendorff's alpha with the MASI set distance",
            summary=True,
            panel=True,
            short="α MASI",
            method="alpha over label sets with NLTK's MASI distance (unsquared, as "
            "nltk.metrics.agreement computes it); n = items with two or more answers.",
        ),
        MULTI,
        compute=masi_alpha,
    )
)
LABEL_ALPHA = declare(
    Measure(
        "label_alpha_mean",
        MeasureView(
            "alpha per label (mean)",
            "Mean over labels of nominal alpha on whether each label was chosen",
            summary=True,
            method="for each declared label, nominal alpha on chose / did not choose it; "
            "per label in label_alpha_by_label, undefined labels in label_alpha_reasons.",
        ),
        MULTI,
        compute=label_alphas,
    )
)
