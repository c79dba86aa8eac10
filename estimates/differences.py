"""Differences between two systems with 95 % intervals.

Unpaired (the systems answered different items): the difference of the two estimates,
standard errors added in quadrature. Paired (the frame has a ``pair`` column naming the
input an item answers, and both systems answered the same inputs): every estimate is taken
over the per-input differences, so the shared difficulty of an input cancels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from estimates.groups import GroupEstimates, estimate_group
from estimates.intervals import Estimate, missing, normal

METHODS = ("human", "judge", "ppi")


@dataclass(frozen=True)
class Difference:
    """System ``a`` minus system ``b`` under each method."""

    a: str
    b: str
    paired: bool
    n_pairs: int
    estimates: dict[str, Estimate]

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``a``, ``b``, ``paired``, ``n_pairs`` and one entry per method."""
        return {
            "a": self.a,
            "b": self.b,
            "paired": self.paired,
            "n_pairs": self.n_pairs,
            **{k: e.to_dict() for k, e in self.estimates.items()},
        }


def _unpaired(a: GroupEstimates, b: GroupEstimates) -> Difference:
    out = {}
    for key in METHODS:
        ea, eb = a.methods()[key], b.methods()[key]
        if ea.estimate is None or eb.estimate is None or ea.se is None or eb.se is None:
            out[key] = missing(key, ea.reason or eb.reason or "an estimate is missing")
            continue
        se = float(np.hypot(ea.se, eb.se))
        out[key] = normal(key, ea.estimate - eb.estimate, se, biased=ea.biased)
    return Difference(a.group, b.group, False, 0, out)


def paired_frame(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """One row per input both systems answered: judge and human differences (a - b)."""
    cols = ["pair", "judge", "human"]
    fa = frame.loc[frame["group"] == a, cols].groupby("pair").mean()
    fb = frame.loc[frame["group"] == b, cols].groupby("pair").mean()
    both = fa.join(fb, how="inner", suffixes=("_a", "_b"))
    return pd.DataFrame(
        {
            "item_id": both.index.astype(str),
            "group": f"{a} - {b}",
            "judge": both["judge_a"] - both["judge_b"],
            "human": both["human_a"] - both["human_b"],
        }
    )


def difference(frame: pd.DataFrame, a: GroupEstimates, b: GroupEstimates) -> Difference:
    """``a`` minus ``b``: paired over shared inputs when the frame pairs them and enough
    pairs have both human values for a PPI++ interval; else unpaired (conservative when
    shared inputs make the systems' values go together)."""
    if "pair" in frame and frame["pair"].notna().any():
        diffs = paired_frame(frame, a.group, b.group)
        g = estimate_group(f"{a.group} - {b.group}", diffs, binary=False)
        if g.ppi.estimate is not None:
            est = {k: g.methods()[k] for k in METHODS}
            return Difference(a.group, b.group, True, len(diffs), est)
    return _unpaired(a, b)
