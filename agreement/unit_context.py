"""Ratings that carry what a question-type statistic needs beyond the values.

A pairwise question's ranking needs the systems each item compared; a span question's
character alpha needs each item's text length; a multi-label question's per-label alpha
needs the declared labels. :func:`with_context` attaches them, keyed by unit, and a
statistic reads them with :func:`context_of` (an empty mapping for plain ratings).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreement.ratings import Ratings


@dataclass(frozen=True, eq=False)
class ContextRatings(Ratings):
    """:class:`Ratings` plus a mapping of context (e.g. ``{"systems": {unit: ...}}``)."""

    context: Mapping[str, Any] = field(default_factory=dict)


def with_context(r: Ratings, context: Mapping[str, Any]) -> Ratings:
    """``r`` with ``context`` attached (``r`` itself when there is none)."""
    if not context:
        return r
    return ContextRatings(r.units, r.annotators, r.codes, r.domain, r.numeric, context)


def context_of(r: Ratings) -> Mapping[str, Any]:
    """The context attached to ``r`` (empty for plain ratings)."""
    return getattr(r, "context", {})


def alpha_with_distance(counts: np.ndarray, d: np.ndarray) -> tuple[float | None, str | None]:
    """Krippendorff's alpha of per-unit value counts (units x V) with the distance
    matrix ``d`` (V x V, used as given, as NLTK's ``AnnotationTask.alpha`` does).

    Only units with two or more values count. Returns (alpha, None) or (None, reason).
    """
    m = counts.sum(axis=1)
    c = counts[m >= 2].astype(float)
    if len(c) == 0:
        return None, "no pairable unit (no unit has two or more answers)"
    mu = c.sum(axis=1)
    o = (c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(c.shape[1])[None]) / (mu - 1)[
        :, None, None
    ]
    o = o.sum(axis=0)
    n_v = o.sum(axis=1)
    n = n_v.sum()
    expected = (n_v[:, None] * n_v[None, :] * d).sum()
    if expected <= 0:
        return None, "only one value used in the pairable units: no variation to agree on"
    return float(1 - (n - 1) * (o * d).sum() / expected), None
