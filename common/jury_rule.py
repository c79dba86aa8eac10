"""How a jury combines its members' values (shared by the jury evaluator and the
alignment figures that recompute it without one member).

Values come in the members' drawn order for the item: a majority tie goes to the tied
value that comes first in that order.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Sequence

AGGREGATES = ("majority", "mean", "median")


def aggregate(values: Sequence[float], how: str) -> tuple[float, bool]:
    """The jury's value from the members' values in their drawn order, and whether a
    majority tie was broken by that order."""
    if how == "mean":
        return float(statistics.fmean(values)), False
    if how == "median":
        return float(statistics.median(values)), False
    counts = Counter(values)
    top = max(counts.values())
    tied = [v for v in values if counts[v] == top]
    return float(tied[0]), len(set(tied)) > 1


def member_order(n: int, seed: int, item_id: str) -> list[int]:
    """The members' positions in a per-item order drawn from the seed and the item id."""
    order = list(range(n))
    random.Random(f"{seed}:{item_id}").shuffle(order)
    return order
