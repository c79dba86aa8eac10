"""Frame helpers shared by the writers."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def plain(value: Any) -> Any:
    """A JSON-ready Python value (NumPy scalars unwrapped, NaN as None)."""
    if hasattr(value, "item") and not isinstance(value, list | dict | str):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts of plain values."""
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
