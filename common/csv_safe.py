"""The one CSV writer of the workbench: cells a spreadsheet would run as formulas are
neutralised.

A spreadsheet treats a cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula (CSV injection). Following OWASP's rule, such text cells get a leading
single quote, which spreadsheets show as text. Numbers are left alone (``-0.5`` stays a
number); only strings are changed. JSONL and Parquet exports never pass through here and
stay exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads on first use: quick CLI commands import this module
    import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """A copy of ``df`` with every text cell (and column / index label) neutralised."""
    import pandas as pd

    out = df.copy()
    for column in out.columns:
        series = out[column]
        if series.dtype == object or isinstance(series.dtype, pd.StringDtype):
            values = series.astype(object)
            # Only a column that holds a formula cell is rebuilt (as objects), so numbers
            # in mixed columns keep their text (``map`` would infer floats: 1 -> 1.0).
            if any(neutralise(v) is not v for v in values):
                out[column] = pd.Series(
                    [neutralise(v) for v in values], index=series.index, dtype=object
                )
    out.columns = [neutralise(c) if isinstance(c, str) else c for c in out.columns]
    if index and not isinstance(out.index, pd.MultiIndex):
        out.index = pd.Index(out.index.map(neutralise), name=out.index.name)
    return out


def to_csv(
    df: pd.DataFrame, target: str | Path | IO[str] | None = None, *, index: bool = False
) -> str | None:
    """Write ``df`` as CSV with formula cells neutralised; returns the text when
    ``target`` is None (like :meth:`pandas.DataFrame.to_csv`)."""
    return safe_frame(df, index=index).to_csv(target, index=index)


def csv_bytes(df: pd.DataFrame, *, index: bool = False) -> bytes:
    """UTF-8 CSV bytes of ``df`` with formula cells neutralised (for downloads)."""
    return (to_csv(df, index=index) or "").encode("utf-8")
