"""The three estimates (and the corrected rate) per system and overall, from one frame.

The frame has one row per item: ``item_id``, ``group`` (the system, the items'
``generator``), ``judge`` (the judge's score, NaN when not judged), ``human`` (the human
reference, NaN when nobody labelled it) and optionally ``probability`` (the recorded
active-selection probability; then the estimates are the weighted ones of
:mod:`estimates.active`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from estimates.active import active_mean
from estimates.intervals import Estimate
from estimates.ppi import classical_mean, judge_mean, ppi_mean
from estimates.rogan_gladen import corrected_rate

OVERALL = "overall"


@dataclass(frozen=True)
class GroupEstimates:
    """Every estimate of one system (or of all items)."""

    group: str
    n_human: int
    n_judge: int
    n_both: int
    human: Estimate
    judge: Estimate
    ppi: Estimate
    corrected: Estimate | None  # binary fields only
    weighted: bool = False

    @property
    def effective_n(self) -> float | None:
        """How many human labels alone would give the PPI++ interval's width."""
        h, p = self.human.se, self.ppi.se
        if h is None or p is None or p <= 0:
            return None
        return self.human.extra.get("n", self.n_human) * (h / p) ** 2

    @property
    def saved(self) -> float | None:
        """The share of the human-only interval's width that PPI++ saves."""
        h, p = self.human.half_width, self.ppi.half_width
        return None if h is None or p is None or h <= 0 else 1 - p / h

    def methods(self) -> dict[str, Estimate]:
        """The estimates by JSON key (the corrected rate only for binary fields)."""
        out = {"human": self.human, "judge": self.judge, "ppi": self.ppi}
        if self.corrected is not None:
            out["corrected"] = self.corrected
        return out

    def to_dict(self) -> dict[str, Any]:
        """``n_human``, ``n_judge``, and per method ``estimate``, ``ci`` (PPI++: ``lambda``)."""
        return {
            "group": self.group,
            "n_human": self.n_human,
            "n_judge": self.n_judge,
            "n_both": self.n_both,
            "weighted": self.weighted,
            **{k: e.to_dict() for k, e in self.methods().items()},
            "effective_n": self.effective_n,
            "saved": self.saved,
        }


def estimate_group(name: str, frame: pd.DataFrame, binary: bool) -> GroupEstimates:
    """Estimates over the rows of ``frame`` (one system, or all)."""
    f = frame["judge"].to_numpy(float)
    y = frame["human"].to_numpy(float)
    judged, labelled = ~np.isnan(f), ~np.isnan(y)
    both = judged & labelled
    weighted = "probability" in frame and bool(frame["probability"][judged].notna().all())
    if weighted and judged.any():
        pi = frame["probability"].to_numpy(float)[judged]
        human = active_mean(f[judged], y[judged], pi, lam=0.0, method="human")
        ppi = active_mean(f[judged], y[judged], pi)
    else:
        weighted = False
        human = classical_mean(y[labelled])
        ppi = ppi_mean(y[both], f[both], f[judged & ~labelled])
    corrected = corrected_rate(f[judged], y[both], f[both]) if binary else None
    return GroupEstimates(
        name,
        int(labelled.sum()),
        int(judged.sum()),
        int(both.sum()),
        human,
        judge_mean(f[judged]),
        ppi,
        corrected,
        weighted,
    )


def estimate_groups(frame: pd.DataFrame, binary: bool, by_group: bool) -> list[GroupEstimates]:
    """Overall first, then (with ``by_group``) one entry per system in name order."""
    out = [estimate_group(OVERALL, frame, binary)]
    if by_group:
        groups = frame["group"].fillna("(none)").astype(str)
        for name in sorted(groups.unique()):
            out.append(estimate_group(name, frame[groups == name], binary))
    return out
