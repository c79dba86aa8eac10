"""Helpers for a kind's optional column-wise derivation (``TaskKind.derive_columns_fn``).

The agreement engine hands the function a :class:`LabelColumns`: one entry per (item,
annotator) unit, each human field's raw labels as an object array (None where missing).
The function returns each derived score as a float array, NaN where undefined, and must
give exactly the floats ``derive`` gives (same operations in the same order);
``tests/test_agreement_fast_paths.py`` checks that on random labels. Kind modules import
this module inside their function, so loading a kind never loads numpy.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from kinds.base import share_implied


class LabelColumns(Protocol):
    """Per-unit label columns of one project's annotations."""

    n: int

    def column(self, name: str) -> np.ndarray:
        """Per unit, the raw label of field ``name`` (None where missing)."""
        ...


def floats(raw: np.ndarray) -> np.ndarray:
    """float(v) of every present value (NaN where missing), as ``derive`` converts them."""
    out = np.full(len(raw), np.nan)
    present = np.array([v is not None for v in raw], dtype=bool)
    out[present] = raw[present].astype(float)
    return out


def shares_implied(raw: np.ndarray) -> np.ndarray:
    """:func:`kinds.base.share_implied` of every present fact list (NaN where undefined)."""
    out = np.full(len(raw), np.nan)
    for i in np.flatnonzero(np.array([v is not None for v in raw], dtype=bool)):
        s = share_implied(raw[i])
        out[i] = np.nan if s is None else s
    return out


def f1_columns(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    """:func:`kinds.base.f1` element-wise (NaN where either side is undefined)."""
    both = ~np.isnan(recall) & ~np.isnan(precision)
    out = np.full(len(precision), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        harmonic = 2 * precision * recall / (precision + recall)
    out[both] = np.where(precision[both] + recall[both] == 0, 0.0, harmonic[both])
    return out
