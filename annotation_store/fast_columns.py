"""Bulk reads without SQLAlchemy's per-row type processing.

On SQLite, JSON and DATETIME columns come back as text that SQLAlchemy decodes row by row
in Python, which dominates reading 100,000+ labels. These helpers read such columns as
raw text on the driver's own cursor and decode them in bulk: all JSON texts of a column in
one ``json.loads`` of a joined array, timestamps with one ``pandas.to_datetime``. On
PostgreSQL the driver already returns decoded values, so nothing is changed there.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Select, Text, type_coerce
from sqlalchemy.sql.elements import ColumnElement

from common.lazy import LazyModule

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from sqlalchemy.orm import Session
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

#: Rows per batch of :meth:`RawColumns.fetch_batches`.
BATCH_ROWS = 50_000


class RawColumns:
    """Column wrappers, a fast fetch and bulk decoders for one backend."""

    def __init__(self, is_sqlite: bool) -> None:
        self.is_sqlite = is_sqlite

    def text(self, column: Any) -> ColumnElement[Any]:
        """Select a JSON / DATETIME column as raw text on SQLite."""
        return type_coerce(column, Text) if self.is_sqlite else column

    def fetch(self, session: Session | Connection, query: Select[Any]) -> list[tuple[Any, ...]]:
        """All rows of ``query`` as plain tuples, on the session's connection (or on the
        connection given).

        SQLite: compiled once and run on the driver's cursor, skipping SQLAlchemy's result
        machinery (the columns are raw text anyway). Elsewhere: a Core execute.
        """
        conn = session if isinstance(session, Connection) else session.connection()
        if not self.is_sqlite:
            return [tuple(r) for r in conn.execute(query).all()]
        compiled = query.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        order = compiled.positiontup or []
        params = tuple(compiled.params[name] for name in order)
        cursor = conn.connection.driver_connection.cursor()
        try:
            cursor.execute(str(compiled), params)
            return cursor.fetchall()
        finally:
            cursor.close()

    def fetch_batches(
        self, session: Session | Connection, query: Select[Any], size: int = BATCH_ROWS
    ) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of ``query`` as plain tuples, ``size`` at a time, so a caller can turn
        each batch into compact columns before the next is read (the tuples of all
        150,000+ rows at once are the largest thing such a read holds). SQLite: the
        driver's cursor, as :meth:`fetch`; elsewhere a Core execute."""
        conn = session if isinstance(session, Connection) else session.connection()
        if not self.is_sqlite:
            result = conn.execute(query)
            while batch := result.fetchmany(size):
                yield [tuple(r) for r in batch]
            return
        compiled = query.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = tuple(compiled.params[name] for name in compiled.positiontup or [])
        cursor = conn.connection.driver_connection.cursor()
        try:
            cursor.execute(str(compiled), params)
            while batch := cursor.fetchmany(size):
                yield batch
        finally:
            cursor.close()

    def decode_json(self, values: Sequence[Any]) -> list[Any]:
        """Decode a column selected with :meth:`text` from a JSON column.

        A JSON column has NUMERIC affinity in SQLite: numbers come back as numbers and
        everything else (strings included) as JSON text, decoded here in one parse.
        """
        if not self.is_sqlite:
            return list(values)
        out = list(values)
        where = [i for i, v in enumerate(out) if isinstance(v, str)]
        if where:
            decoded = json.loads("[" + ",".join(out[i] for i in where) + "]")
            for i, value in zip(where, decoded, strict=True):
                out[i] = value
        return out

    @staticmethod
    def timestamps(values: Sequence[Any], order: np.ndarray | None = None) -> pd.Series:
        """Timestamps from raw SQLite text or driver datetimes (row i: ``values[order[i]]``).

        Each distinct value is parsed once and the rows gathered by code: labels saved
        together share their timestamp, and even when all differ this is faster than
        ``to_datetime``'s own cache heuristics on the full column. Parsing is per value,
        so the result is the same as parsing every row.
        """
        codes, distinct = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=False)
        return RawColumns.coded_timestamps(codes, list(distinct), order)

    @staticmethod
    def coded_timestamps(
        codes: np.ndarray, distinct: Sequence[Any], order: np.ndarray | None = None
    ) -> pd.Series:
        """:meth:`timestamps` of the rows whose value is ``distinct[codes[i]]``."""
        parsed = pd.to_datetime(pd.Series(distinct, dtype=object), format="ISO8601")
        return pd.Series(parsed.array.take(codes if order is None else codes[order]))


class Coder:
    """Integer codes of values in order of first appearance (as ``pd.factorize`` gives
    them), built a batch at a time: only the distinct values are kept."""

    def __init__(self) -> None:
        self.codes: dict[Hashable, int] = {}
        self._parts: list[np.ndarray] = []

    def add(self, values: Iterable[Hashable], count: int) -> None:
        """Code the next ``count`` values."""
        codes = self.codes
        self._parts.append(
            np.fromiter((codes.setdefault(v, len(codes)) for v in values), np.intp, count)
        )

    @property
    def distinct(self) -> list[Any]:
        """The distinct values, code 0 first."""
        return list(self.codes)

    def all_codes(self) -> np.ndarray:
        """Every value's code so far, in order."""
        return np.concatenate(self._parts) if self._parts else np.zeros(0, dtype=np.intp)

    def sorted_codes(self) -> tuple[np.ndarray, list[Any]]:
        """Codes and distinct values as ``pd.factorize(..., sort=True)`` gives them."""
        distinct = self.distinct
        names = sorted(distinct)
        rank = np.empty(len(distinct), dtype=np.intp)
        rank[[distinct.index(v) for v in names]] = np.arange(len(names))
        return rank[self.all_codes()], names


def coded_column(values: Sequence[Any], codes: np.ndarray) -> pd.Series:
    """The column whose row i is ``values[codes[i]]``.

    For long columns with few distinct strings (item ids, annotator and field names):
    pandas converts the distinct values once (inferring the dtype exactly as it would for
    the full list) and gathers rows in one C-level take, instead of converting every
    row's Python string into its Arrow-backed string array.
    """
    base = pd.Series(list(values))
    return pd.Series(base.array.take(np.asarray(codes, dtype=np.intp)))


def categorical_column(values: Sequence[Any], codes: np.ndarray) -> pd.Series:
    """:func:`coded_column` as a categorical: row i is ``values[codes[i]]`` (None missing).

    One small integer per row instead of an Arrow string (1.8 million score rows: the
    signature column alone is 92 MB as strings, 2 MB as codes). The categories are the
    distinct values the rows hold, sorted, so sorting and grouping order rows as for the
    strings, and counts and unique values name no value the column lacks.
    """
    codes = np.asarray(codes, dtype=np.intp)
    used = np.flatnonzero(np.bincount(codes, minlength=len(values))) if len(codes) else []
    distinct = sorted({values[i] for i in used} - {None})
    at = {v: i for i, v in enumerate(distinct)}
    lut = np.fromiter((at.get(v, -1) for v in values), np.intp, len(values))
    codes = lut[codes] if len(codes) else codes
    return pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(distinct)))


def rank_lookup(keys: Sequence[int]) -> np.ndarray:
    """Array ``lut`` with ``lut[keys[i]] == i`` (-1 elsewhere): primary key -> rank."""
    keys_arr = np.asarray(keys, dtype=np.int64)
    lut = np.full(int(keys_arr.max()) + 1 if len(keys_arr) else 0, -1, dtype=np.intp)
    lut[keys_arr] = np.arange(len(keys_arr))
    return lut
