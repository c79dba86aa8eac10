"""The reliability matrix: units x annotators, built from a tidy (unit, annotator, value) frame."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

MISSING = -1


@dataclass(frozen=True, eq=False)
class Ratings:
    """Coded ratings of one variable.

    ``codes[u, a]`` is the index into ``domain`` of annotator ``a``'s value on unit ``u``,
    or ``MISSING``. ``domain`` is ordered (numeric order for numeric values, else the
    order the field declares) so ordinal and interval distances can be taken from it.
    Built from a tidy frame, units are sorted by id and annotators by name, so the matrix
    (and every seeded bootstrap, which draws units by position) does not depend on the
    order of the input rows.
    """

    units: tuple[str, ...]
    annotators: tuple[str, ...]
    codes: np.ndarray
    domain: tuple[Any, ...]
    numeric: bool

    @classmethod
    def from_long(
        cls,
        frame: pd.DataFrame,
        *,
        unit: str = "item_id",
        annotator: str = "annotator",
        value: str = "value",
        domain: Sequence[Any] | None = None,
        numeric: bool = False,
        units: Sequence[str] | None = None,
    ) -> Ratings:
        """Build from a tidy frame; values outside ``domain`` are appended (sorted).

        Units are sorted by id (as strings) unless ``units`` gives their order;
        annotators are sorted by name.
        """
        ratings, _, _ = cls.from_long_coded(
            frame,
            unit=unit,
            annotator=annotator,
            value=value,
            domain=domain,
            numeric=numeric,
            units=units,
        )
        return ratings

    @classmethod
    def from_long_coded(
        cls,
        frame: pd.DataFrame,
        *,
        unit: str = "item_id",
        annotator: str = "annotator",
        value: str = "value",
        domain: Sequence[Any] | None = None,
        numeric: bool = False,
        units: Sequence[str] | None = None,
    ) -> tuple[Ratings, np.ndarray, np.ndarray]:
        """:meth:`from_long`, plus the unit and annotator index of every non-missing row."""
        df = frame[[unit, annotator, value]].dropna(subset=[value])
        unit_col = df[unit].astype(str).to_numpy(dtype=object)
        who_col = df[annotator].astype(str).to_numpy(dtype=object)
        if units is not None:
            unit_ids = tuple(units)
            u_index = pd.Index(unit_ids).get_indexer(unit_col) if len(df) else np.zeros(0, int)
        else:  # units sorted by id: row order must not change the matrix (or a bootstrap)
            u_index, uniq = pd.factorize(unit_col, sort=True)
            unit_ids = tuple(uniq)
        a_index, uniq_people = pd.factorize(who_col, sort=True)
        people = tuple(uniq_people)
        raw = df[value].to_numpy(dtype=float if numeric else object)
        if not numeric:
            raw = df[value].astype(str).to_numpy(dtype=object)
        seen = pd.unique(raw)
        if numeric:
            base = [float(v) for v in (domain or ())]
            dom = tuple(sorted(set(base) | {float(v) for v in seen}))
        else:
            base = [str(v) for v in (domain or ())]
            dom = tuple(base + sorted(set(map(str, seen)) - set(base)))
        codes = np.full((len(unit_ids), len(people)), MISSING, dtype=np.int64)
        if len(df):
            v_index = pd.Index(dom).get_indexer(raw)
            keep = u_index >= 0
            codes[u_index[keep], a_index[keep]] = v_index[keep]
        return cls(unit_ids, people, codes, dom, numeric), u_index, a_index

    @classmethod
    def from_matrix(
        cls,
        matrix: Sequence[Sequence[Any]],
        numeric: bool = True,
        domain: Sequence[Any] | None = None,
    ) -> Ratings:
        """Build from an annotators x units matrix (Krippendorff's layout; None/NaN missing)."""
        rows = []
        for a, row in enumerate(matrix):
            for u, v in enumerate(row):
                if v is None or (isinstance(v, float) and np.isnan(v)):
                    continue
                rows.append((f"u{u:05d}", f"a{a:03d}", v))
        n_units = max((len(r) for r in matrix), default=0)
        frame = pd.DataFrame(rows, columns=["item_id", "annotator", "value"])
        return cls.from_long(
            frame, domain=domain, numeric=numeric, units=[f"u{u:05d}" for u in range(n_units)]
        )

    def unit_order(self) -> np.ndarray:
        """Positions of the units sorted by id: the order every bootstrap resamples them in,
        so a seeded interval does not depend on how the units happen to be ordered."""
        ids = np.asarray(self.units, dtype=str)
        return np.argsort(ids, kind="stable")

    @property
    def n_units(self) -> int:
        """Number of units (rows), including units nobody rated."""
        return len(self.units)

    @cached_property
    def counts(self) -> np.ndarray:
        """Value counts per unit: (n_units, V) number of annotators giving each value."""
        n, v = self.codes.shape[0], len(self.domain)
        rows, cols = np.nonzero(self.codes != MISSING)
        flat = rows * v + self.codes[rows, cols]
        return np.bincount(flat, minlength=n * v).astype(np.int64).reshape(n, v)

    @cached_property
    def m(self) -> np.ndarray:
        """Number of ratings per unit."""
        return (self.codes != MISSING).sum(axis=1)

    @property
    def n_ratings(self) -> int:
        """Total number of ratings."""
        return int(self.m.sum())

    @property
    def pairable(self) -> np.ndarray:
        """Mask of units with at least two ratings (Krippendorff's pairable units)."""
        return self.m >= 2

    def numeric_domain(self) -> np.ndarray:
        """The domain as floats (codes 0..V-1 for non-numeric values)."""
        if self.numeric:
            return np.asarray(self.domain, dtype=float)
        return np.arange(len(self.domain), dtype=float)

    def value_matrix(self) -> np.ndarray:
        """Units x annotators of values as floats (codes for non-numeric), NaN missing."""
        dom = self.numeric_domain()
        out = np.full(self.codes.shape, np.nan)
        mask = self.codes != MISSING
        out[mask] = dom[self.codes[mask]]
        return out

    def frame(self) -> pd.DataFrame:
        """The reliability matrix as a frame: one row per unit, one column per annotator."""
        values = np.empty(self.codes.shape, dtype=object)
        dom = np.array(
            [int(v) if isinstance(v, float) and v.is_integer() else v for v in self.domain]
            + [None],
            dtype=object,
        )[:-1]
        mask = self.codes != MISSING
        values[mask] = dom[self.codes[mask]]
        values[~mask] = None
        return pd.DataFrame(
            values, index=pd.Index(self.units, name="item_id"), columns=list(self.annotators)
        )

    def permuted(self, unit_order: Sequence[int], annotator_order: Sequence[int]) -> Ratings:
        """The same ratings with units and annotators reordered (for property tests)."""
        uo, ao = list(unit_order), list(annotator_order)
        return Ratings(
            tuple(self.units[i] for i in uo),
            tuple(self.annotators[j] for j in ao),
            self.codes[np.ix_(uo, ao)],
            self.domain,
            self.numeric,
        )
