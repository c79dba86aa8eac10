"""Agreement on ranking questions: Kendall's W, and a Bradley-Terry view of the pairs.

The ratings hold one unit per item and output (``item#output``), its value the output's
mid-rank, so Krippendorff's alpha on rank distances (ordinal and interval) comes from the
classic statistics. Declared here, for ranking questions only:
- Kendall's W of each item (the annotators who ranked every output of it; Friedman's tie
  correction), averaged over the items two or more annotators ranked, with a percentile
  bootstrap interval over those items;
- a Bradley-Terry ranking of the systems behind the outputs from the pairs each ranking
  implies (a placed above b: a win for a; level: half a win each), as for pairwise
  questions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agreement.bootstrap import draws, percentile_ci
from agreement.measures import Measure, MeasureView
from agreement.pairwise_choice import ranked_systems
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.statistics import StatContext, declare
from agreement.unit_context import context_of

#: The question type these apply to (a plugin copy of this module changes this line only).
NAME = "ranking"


def items_of(r: Ratings) -> dict[str, dict[str, int]]:
    """item -> output -> unit row, from the ``item#output`` unit ids, items sorted."""
    out: dict[str, dict[str, int]] = {}
    for row, unit in enumerate(r.units):
        item, _, output = unit.rpartition("#")
        out.setdefault(item, {})[output] = row
    return dict(sorted(out.items()))


def complete_block(r: Ratings, rows: dict[str, int]) -> np.ndarray:
    """outputs x annotators of mid-ranks, only the annotators who ranked every output."""
    block = r.value_matrix()[list(rows.values())]
    return block[:, ~np.isnan(block).any(axis=0)]


def kendall_w(block: np.ndarray) -> float | None:
    """Kendall's W of k objects (rows) ranked by m raters (columns), ties corrected:
    W = 12 S / (m^2 (k^3 - k) - m sum T), T = sum over a rater's ties of t^3 - t."""
    k, m = block.shape
    if k < 2 or m < 2:
        return None
    totals = block.sum(axis=1)
    s = float(((totals - totals.mean()) ** 2).sum())
    ties = 0.0
    for col in block.T:
        _, sizes = np.unique(col, return_counts=True)
        ties += float((sizes**3 - sizes).sum())
    denominator = m * m * (k**3 - k) - m * ties
    return None if denominator <= 0 else 12 * s / denominator


def item_ws(r: Ratings) -> np.ndarray:
    """Kendall's W of every item two or more annotators ranked completely."""
    ws = (kendall_w(complete_block(r, rows)) for rows in items_of(r).values())
    return np.array([w for w in ws if w is not None], dtype=float)


def mean_kendall_w(ctx: StatContext) -> Stat:
    """Kendall's W averaged over items, with a bootstrap interval over them."""
    ws = item_ws(ctx.ratings)
    if len(ws) == 0:
        return Stat.undefined("no item was ranked completely by two or more annotators")
    value = float(ws.mean())
    if ctx.n_resamples <= 0 or len(ws) < 2:
        return Stat(value, len(ws))
    # every resample draws len(ws) items, so its count total is len(ws) (exact in floats)
    ci, _ = percentile_ci(draws(len(ws), ctx.n_resamples, ctx.seed).product(ws) / float(len(ws)))
    return Stat(value, len(ws), None, ci)


def implied_pairs(r: Ratings) -> tuple[list[str], list[list[tuple[int, int, float]]]]:
    """Systems and, per item, the (i, j, score of i) outcomes each complete ranking
    implies between every two outputs of different systems."""
    systems_of = context_of(r).get("systems") or {}
    names: dict[str, int] = {}
    per_item: list[list[tuple[int, int, float]]] = []
    for item, rows in items_of(r).items():
        outputs = list(rows)
        named = systems_of.get(item) or {o: o for o in outputs}
        idx = [names.setdefault(str(named.get(o, o)), len(names)) for o in outputs]
        outcomes = []
        for ranks in complete_block(r, rows).T:
            for a in range(len(outputs)):
                for b in range(a + 1, len(outputs)):
                    if idx[a] != idx[b]:
                        score = 0.5 if ranks[a] == ranks[b] else float(ranks[a] < ranks[b])
                        outcomes.append((idx[a], idx[b], score))
        per_item.append(outcomes)
    return list(names), per_item


def bradley_terry(ctx: StatContext) -> Stat:
    """The systems' Bradley-Terry strengths from the implied pairs; P(top beats second)."""
    systems, per_item = implied_pairs(ctx.ratings)
    key = f"{NAME}_bradley_terry"
    return ranked_systems(systems, per_item, ctx.n_resamples, ctx.seed, key)


def _declare(
    key: str, view: MeasureView, compute: Callable[[StatContext], Stat], **kw: Any
) -> Measure:
    """One of this type's statistics: shown for ranking questions only."""
    return declare(
        Measure(f"{NAME}_{key}", view, frozenset({NAME}), compute=compute, listed=False, **kw)
    )


KENDALL_W = _declare(
    "kendall_w",
    MeasureView(
        "Kendall W",
        "Kendall's W among annotators per item, averaged over items",
        summary=True,
        panel=True,
        method="Kendall's coefficient of concordance of the annotators who ranked every "
        "output of an item (mid-ranks for ties, Friedman's tie correction), averaged over "
        "the items two or more annotators ranked, 95% percentile bootstrap over those "
        "items; n = items.",
    ),
    mean_kendall_w,
    n_key=f"{NAME}_kendall_w_n_items",
)
BRADLEY_TERRY = _declare(
    "bradley_terry_top",
    MeasureView(
        "BT P(top > 2nd)",
        "Bradley-Terry ranking of the systems, from the pairs the rankings imply",
        summary=True,
        method="each complete ranking implies a verdict on every two outputs (above: a "
        "win; level: half a win each); Bradley-Terry strengths of the systems behind the "
        f"outputs as for pairwise questions, in {NAME}_bradley_terry; the headline is the "
        "fitted probability that the top system beats the second; n = implied pairs.",
    ),
    bradley_terry,
    n_key=f"{NAME}_bradley_terry_n_comparisons",
)
