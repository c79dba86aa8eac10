"""Annotator quality and a reference label on ordinal, Likert and score questions.

Majority votes, Dawid-Skene and MACE treat labels as unordered classes; on a 1-5 scale
they throw away that 4 is nearer to 5 than 1 is. Here each annotator is compared with
the *others* on the same items (leave one out, so nobody is compared with themself):

- ``r_others``: Pearson's r between the annotator's ratings and the mean of the other
  annotators' ratings of those items (items with at least one other rating; needs 3);
- ``mad_others``: mean absolute difference from that mean, in scale points;
- ``bias``: mean of (own - others' mean): a lenient rater is positive.

The reference of an item is the mean (or median) of its ratings, with n, the ratings
it rests on. Everything is one pass of grouped sums over the labels (linear in labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Items an annotator needs with other ratings before r_others is defined.
MIN_SHARED = 3
METHODS = ("mean", "median")


@dataclass(frozen=True)
class OrdinalQuality:
    """One annotator's figures on one ordinal field (NaN: undefined, shown as a dash)."""

    annotator: str
    n_labels: int
    n_with_others: int
    r_others: float
    mad_others: float
    bias: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN stays NaN; the CLI prints it as null)."""
        return dict(self.__dict__)


def _numeric(labels: pd.DataFrame) -> pd.DataFrame:
    values = pd.to_numeric(labels["value"], errors="coerce")
    frame = pd.DataFrame(
        {"item_id": labels["item_id"].astype(str), "annotator": labels["annotator"].astype(str)}
    )
    frame["value"] = values.to_numpy(dtype=float)
    return frame[np.isfinite(frame["value"])]


def ordinal_quality(labels: pd.DataFrame) -> list[OrdinalQuality]:
    """Figures per annotator (by name) from one field's labels (item_id, annotator,
    value); non-numeric values are left out."""
    frame = _numeric(labels)
    if frame.empty:
        return []
    by_item = frame.groupby("item_id")["value"].agg(["sum", "size"])
    total = by_item["sum"].reindex(frame["item_id"]).to_numpy()
    count = by_item["size"].reindex(frame["item_id"]).to_numpy()
    own = frame["value"].to_numpy()
    has = count > 1
    others = np.full(len(frame), np.nan)
    others[has] = (total[has] - own[has]) / (count[has] - 1)
    frame = frame.assign(others=others, has=has)
    out = []
    for name, rows in frame.groupby("annotator", sort=True):
        shared = rows[rows["has"]]
        mine, theirs = shared["value"].to_numpy(), shared["others"].to_numpy()
        r = float("nan")
        if len(shared) >= MIN_SHARED and mine.std() > 0 and theirs.std() > 0:
            r = float(np.corrcoef(mine, theirs)[0, 1])
        out.append(
            OrdinalQuality(
                annotator=str(name),
                n_labels=len(rows),
                n_with_others=len(shared),
                r_others=r,
                mad_others=float(np.abs(mine - theirs).mean()) if len(shared) else float("nan"),
                bias=float((mine - theirs).mean()) if len(shared) else float("nan"),
            )
        )
    return out


def ordinal_reference(labels: pd.DataFrame, method: str = "mean") -> pd.DataFrame:
    """item_id, value (the mean or median of the item's ratings), n (ratings)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for an ordinal field: use mean or median")
    frame = _numeric(labels)
    grouped = frame.groupby("item_id", sort=False)["value"]
    out = grouped.agg([method, "size"]).reset_index()
    return out.rename(columns={method: "value", "size": "n"})
