"""Derived scores of every annotator on every item, from the tidy label frame.

The definition is the kind's ``derive(labels, item_fields)``, called once per annotator
and item (:func:`derived_by_kind`). For kinds whose derive function is known here to be a
simple formula of the labels, the same numbers are computed column-wise
(:data:`VECTORISED`), with the same float operations in the same order, so the values are
identical; ``tests/test_agreement_fast_paths.py`` checks them against ``kind.derive`` on
random labels. Every other kind takes the per-row path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from kinds import TaskKind
from kinds.base import share_implied
from kinds.builtin import actionability, intent_match

COLUMNS = ["item_id", "annotator", "field", "value"]


def empty() -> pd.DataFrame:
    """A derived-label frame with no rows."""
    return pd.DataFrame(columns=COLUMNS)


def derived_by_kind(kind: TaskKind, annotations: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The definition: ``kind.derive`` per (item, annotator) on their non-missing labels."""
    fields_of = dict(zip(items["item_id"], items["fields"], strict=False))
    rows = []
    wide = annotations.pivot(index=["item_id", "annotator"], columns="field", values="value")
    names = list(wide.columns)
    for (item_id, who), values in zip(wide.index, wide.itertuples(index=False), strict=True):
        labels = {
            n: v
            for n, v in zip(names, values, strict=True)
            if v is not None and not (isinstance(v, float) and v != v)
        }
        for name, value in kind.derive(labels, fields_of.get(item_id) or {}).items():
            if value is not None:
                rows.append((item_id, who, name, float(value)))
    return pd.DataFrame(rows, columns=COLUMNS)


class _Units:
    """(item, annotator) units in sorted order, and each label row's unit."""

    def __init__(self, annotations: pd.DataFrame) -> None:
        items, self.item_codes = _sorted_codes(annotations["item_id"])
        people, ann_codes = _sorted_codes(annotations["annotator"])
        self.unit = self.item_codes * len(people) + ann_codes
        self.n = len(items) * len(people)
        self.items, self.people = items, people
        self.fields = annotations["field"].to_numpy(dtype=object)
        self.values = annotations["value"].to_numpy(dtype=object)

    def column(self, name: str) -> np.ndarray:
        """Per unit, the raw label of field ``name`` (None where missing)."""
        out = np.full(self.n, None, dtype=object)
        mask = self.fields == name
        units = self.unit[mask]
        if len(np.unique(units)) != len(units):
            raise ValueError("Index contains duplicate entries, cannot reshape")
        values = self.values[mask]
        present = ~pd.isna(values) if values.size else np.zeros(0, bool)
        out[units[present]] = values[present]
        return out

    def frame(self, keep: np.ndarray, name: str, value: np.ndarray) -> pd.DataFrame:
        """Rows for the units in ``keep`` (a mask), in (item, annotator) order."""
        idx = np.flatnonzero(keep)
        return pd.DataFrame(
            {
                "item_id": self.items[idx // len(self.people)],
                "annotator": self.people[idx % len(self.people)],
                "field": name,
                "value": value[idx].astype(float),
            },
            columns=COLUMNS,
        )


def _sorted_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(column, sort=True)
    return np.asarray(uniques, dtype=object), codes.astype(np.int64)


def _floats(raw: np.ndarray) -> np.ndarray:
    """float(v) of every present value (NaN where missing), as ``derive`` converts them."""
    out = np.full(len(raw), np.nan)
    present = np.array([v is not None for v in raw], dtype=bool)
    out[present] = raw[present].astype(float)
    return out


def _actionability(annotations: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """(detected + corrected + sources) x 5/7 where all three are answered."""
    units = _Units(annotations)
    total = np.zeros(units.n)  # derive: sum() starts from int 0, then adds float(label)
    defined = np.ones(units.n, dtype=bool)
    for name in actionability.RUBRIC_FIELDS:
        v = _floats(units.column(name))
        defined &= ~np.isnan(v)
        total = total + v
    score = total * 5 / actionability.RUBRIC_MAX
    return units.frame(defined, "actionability", score)


def _intent_match(annotations: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Recall / precision = share of C in the gold / predicted fact labels; F1 of both."""
    units = _Units(annotations)

    def shares(name: str) -> np.ndarray:
        raw = units.column(name)
        out = np.full(units.n, np.nan)
        for i in np.flatnonzero(np.array([v is not None for v in raw], dtype=bool)):
            s = share_implied(raw[i])
            out[i] = np.nan if s is None else s
        return out

    recall = shares("gold_fact_labels")
    precision = shares("predicted_fact_labels")
    both = ~np.isnan(recall) & ~np.isnan(precision)
    f1 = np.full(units.n, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        harmonic = 2 * precision * recall / (precision + recall)
    f1[both] = np.where(precision[both] + recall[both] == 0, 0.0, harmonic[both])
    return pd.concat(
        [
            units.frame(~np.isnan(recall), "recall", recall),
            units.frame(~np.isnan(precision), "precision", precision),
            units.frame(both, "f1", f1),
        ],
        ignore_index=True,
    )


#: Column-wise versions of known derive functions (same values, see the module doc).
VECTORISED: dict[Callable, Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]] = {
    actionability.derive: _actionability,
    intent_match.derive: _intent_match,
}


def derived_frame(kind: TaskKind, annotations: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Every derived score per annotator and item: item_id, annotator, field, value.

    Undefined derived values are left out. Uses the column-wise version of the kind's
    derive function when there is one, else :func:`derived_by_kind`.
    """
    if not kind.derived_scores or annotations.empty:
        return empty()
    fast = VECTORISED.get(kind.derive_fn)
    if fast is None:
        return derived_by_kind(kind, annotations, items)
    try:
        return fast(annotations, items)
    except (TypeError, ValueError):  # labels that are not plain numbers / lists
        return derived_by_kind(kind, annotations, items)
