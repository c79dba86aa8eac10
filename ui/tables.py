"""Tables for ``st.dataframe`` without a literal ``None``: undefined cells read "—".

``st.dataframe`` draws a missing value as a grey ``None``, and a number column cannot
show anything else there. So a column with missing values becomes a text column: its
numbers formatted as its ``NumberColumn`` asks (printf style, e.g. ``"%.2f"``), the
missing cells "—", and the column's help says what "—" means there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from agreement.statistics import DASH


def _missing(value: Any) -> bool:
    if value is None:
        return True
    return bool(np.ndim(value) == 0 and pd.isna(value))


def _text(value: Any, fmt: str | None) -> str:
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, int | float | np.number) and fmt and "%" in fmt:
        try:
            return fmt % value
        except (TypeError, ValueError):
            pass
    if isinstance(value, float | np.floating):
        return f"{float(value):.4f}".rstrip("0").rstrip(".")
    return str(value)


def dash_missing(
    frame: pd.DataFrame | list[dict[str, Any]],
    config: Mapping[str, Any] | None = None,
    why: str | Mapping[str, str] = "undefined here",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``frame`` and its column config for ``st.dataframe``, missing cells shown as "—".

    ``config`` is the ``column_config`` the table would use; ``why`` the reason for "—"
    (one for all columns, or per column name), put in the column's help.
    """
    frame = pd.DataFrame(frame)
    config = dict(config or {})
    out = frame.copy()
    for col in frame.columns:
        column = frame[col]
        # a typed column cannot hold lists: one vectorised test instead of one per cell
        missing = (
            column.isna().tolist() if column.dtype != object else [_missing(v) for v in column]
        )
        if not any(missing):
            continue
        spec = config.get(col)
        label, help_, fmt = None, None, None
        if isinstance(spec, Mapping):
            label, help_ = spec.get("label"), spec.get("help")
            fmt = (spec.get("type_config") or {}).get("format")
        elif isinstance(spec, str):
            label = spec
        reason = why.get(col, "undefined here") if isinstance(why, Mapping) else why
        out[col] = [DASH if m else _text(v, fmt) for v, m in zip(frame[col], missing, strict=True)]
        note = f"{DASH}: {reason}"
        config[col] = st.column_config.TextColumn(
            label or str(col), help=f"{help_} ({note})" if help_ else note
        )
    return out, config


def number_columns(formats: Mapping[str, str]) -> dict[str, Any]:
    """Column config of number columns from printf formats (``{"estimate": "%.3f"}``)."""
    return {c: st.column_config.NumberColumn(format=f) for c, f in formats.items()}


def without_empty_columns(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` without the columns missing in every row, and those columns' names
    (a column of dashes only says nothing; the page names them once instead)."""
    empty = [c for c in frame.columns if all(_missing(v) for v in frame[c])] if len(frame) else []
    return frame.drop(columns=empty), empty


def with_help(config: Mapping[str, Any], helps: Mapping[str, str]) -> dict[str, Any]:
    """``config`` with each column of ``helps`` given that help (its header's tooltip);
    a column without a config becomes a text column."""
    out = dict(config)
    for col, text in helps.items():
        spec = out.get(col)
        out[col] = (
            {**spec, "help": text}
            if isinstance(spec, Mapping)
            else st.column_config.TextColumn(spec if isinstance(spec, str) else None, help=text)
        )
    return out
