"""Per-annotator quality on one nominal field: gold accuracy, leave-one-out majority
agreement, and competence from Dawid-Skene and MACE."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from agreement.aggregation import dawid_skene, encode, mace


@dataclass(frozen=True)
class AnnotatorQuality:
    """One annotator's figures on one field (NaN: undefined, shown as a dash)."""

    annotator: str
    n_labels: int
    n_gold: int
    gold_accuracy: float
    n_loo: int
    loo_agreement: float
    dawid_skene: float
    mace: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN stays NaN; the CLI prints it as null)."""
        return dict(self.__dict__)


def same_label(a: Any, b: Any) -> bool:
    """Labels compare as values, or as text when their types differ (1 vs "1")."""
    if a == b:
        return True
    if isinstance(a, float) and a.is_integer():
        a = int(a)
    if isinstance(b, float) and b.is_integer():
        b = int(b)
    return str(a) == str(b)


def loo_majority(labels: pd.DataFrame) -> pd.DataFrame:
    """Each label against the majority of the *other* annotators of its item: annotator,
    hit (bool); labels whose item has no other label or a tie among them are left out."""
    coded = encode(labels)
    n_items, _, k = coded.shape
    counts = np.bincount(coded.item * k + coded.label, minlength=n_items * k).reshape(n_items, k)
    others = counts[coded.item].copy()
    others[np.arange(len(coded.label)), coded.label] -= 1
    top = others.max(axis=1)
    unique_top = (others == top[:, None]).sum(axis=1) == 1
    keep = (top > 0) & unique_top
    hit = others.argmax(axis=1) == coded.label
    return pd.DataFrame({"annotator": coded.annotators[coded.annotator[keep]], "hit": hit[keep]})


def annotator_quality(
    labels: pd.DataFrame, gold: Mapping[str, Any] | None = None
) -> list[AnnotatorQuality]:
    """Quality figures per annotator (by name) from one field's labels (item_id,
    annotator, value) and the gold answers by item_id (if any)."""
    labels = labels.dropna(subset=["value"])
    if labels.empty:
        return []
    gold = dict(gold or {})
    coded = encode(labels)
    ds = dawid_skene(coded).competence
    mc = mace(coded).competence
    loo = loo_majority(labels).groupby("annotator")["hit"].agg(["size", "mean"])
    out = []
    for name, rows in labels.groupby(labels["annotator"].astype(str), sort=True):
        on_gold = [
            same_label(v, gold[i])
            for i, v in zip(rows["item_id"], rows["value"], strict=True)
            if i in gold
        ]
        n_loo = int(loo["size"].get(name, 0))
        out.append(
            AnnotatorQuality(
                annotator=name,
                n_labels=len(rows),
                n_gold=len(on_gold),
                gold_accuracy=float(np.mean(on_gold)) if on_gold else float("nan"),
                n_loo=n_loo,
                loo_agreement=float(loo["mean"][name]) if n_loo else float("nan"),
                dawid_skene=ds.get(name, float("nan")),
                mace=mc.get(name, float("nan")),
            )
        )
    return out
