"""Derived scores of every annotator on every item, from the tidy label frame.

The definition is the kind's ``derive(labels, item_fields)``, called once per annotator
and item (:func:`derived_by_kind`). A kind may also declare the same formula column-wise
(``derive_columns_fn``, see :mod:`kinds.columns`): it is then computed over all units at
once, with the same float operations in the same order, so the values are identical;
``tests/test_agreement_fast_paths.py`` checks them against ``kind.derive`` on random
labels. Every other kind takes the per-row path. No concrete kind is named here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kinds import TaskKind

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


def _vectorised(kind: TaskKind, annotations: pd.DataFrame) -> pd.DataFrame:
    """The kind's column-wise derivation, as rows in (score, item, annotator) order."""
    assert kind.derive_columns_fn is not None
    units = _Units(annotations)
    scores = kind.derive_columns_fn(units)
    frames = []
    for ds in kind.derived_scores:
        value = np.asarray(scores[ds.name], dtype=float)
        frames.append(units.frame(~np.isnan(value), ds.name, value))
    return pd.concat(frames, ignore_index=True) if frames else empty()


def derived_frame(kind: TaskKind, annotations: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Every derived score per annotator and item: item_id, annotator, field, value.

    Undefined derived values are left out. Uses the kind's column-wise derivation when
    it declares one, else :func:`derived_by_kind`.
    """
    if not kind.derived_scores or annotations.empty:
        return empty()
    if kind.derive_columns_fn is None:
        return derived_by_kind(kind, annotations, items)
    try:
        return _vectorised(kind, annotations)
    except (TypeError, ValueError):  # labels that are not plain numbers / lists
        return derived_by_kind(kind, annotations, items)
