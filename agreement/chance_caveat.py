"""One line where Gwet's AC1 / AC2 and Krippendorff's alpha part ways.

Both correct observed agreement for chance, but they estimate chance differently. Alpha
(like Fleiss' and Cohen's kappa) takes the expected agreement from the category shares:
when most ratings fall in one or two categories, two random ratings often agree, so
chance is high and alpha stays low unless people agree beyond it. Gwet's AC takes
chance from how far the shares are from even (``pi_k (1 - pi_k)``): skewed shares mean
little chance agreement, so AC reads high on the same labels. On a pure-noise crowd
batch whose ratings pile up on 4 and 5, AC2 can read 0.5-0.7 beside an alpha of 0.
Neither is wrong; the line says why they differ so nobody quotes one alone.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from agreement.alpha import krippendorff_alpha
from agreement.results import Stat
from agreement.stat_context import StatContext

#: A difference between AC and alpha at least this large gets the line.
DIFFERENCE = 0.25


def with_caveat(ctx: StatContext, stat: Stat, name: str, key: str, levels: tuple[str, ...]) -> Stat:
    """``stat`` (Gwet's ``name``) with the line under ``extra[key]`` when it differs from
    alpha at the first of ``levels`` the field has by ``DIFFERENCE`` or more."""
    level = next((lv for lv in levels if lv in ctx.levels), None)
    if stat.value is None or level is None:
        return stat
    alpha = krippendorff_alpha(ctx.ratings, level).value
    if alpha is None or abs(stat.value - alpha) < DIFFERENCE:
        return stat
    return replace(
        stat, extra={**(stat.extra or {}), key: caveat_line(ctx, name, stat.value, alpha, level)}
    )


def _shown(value: object) -> str:
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, str) else str(value)


def caveat_line(ctx: StatContext, name: str, ac: float, alpha: float, level: str) -> str:
    """The sentence: both figures, the most used categories' share, and why."""
    r = ctx.ratings
    per_value = r.counts.sum(axis=0)
    total = float(per_value.sum()) or 1.0
    top = np.argsort(-per_value, kind="stable")[:2]
    share = float(per_value[top].sum()) / total
    values = " and ".join(_shown(r.domain[i]) for i in top)
    return (
        f"{name} {ac:.2f} and alpha ({level}) {alpha:.2f} differ: {share:.0%} of the ratings "
        f"are {values}. AC takes chance agreement from how uneven the category shares are "
        "(skewed shares: little chance agreement, so AC reads high); alpha and kappa take "
        "it from the shares themselves (skewed shares: much chance agreement, so they read "
        "low). Quote both, with the category shares."
    )
