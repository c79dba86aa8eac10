"""Send the browser one page of a long table: the rows are computed on the server, but a
100,000-item audit table is drawn (and shipped) a page at a time."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

#: Rows drawn at once; a longer table gets a page number.
PAGE_ROWS = 500


def page_slice(frame: pd.DataFrame, key: str) -> tuple[pd.DataFrame, int]:
    """The rows of the page chosen under ``key`` and the position of its first row."""
    size = PAGE_ROWS
    if len(frame) <= size:
        return frame, 0
    pages = math.ceil(len(frame) / size)
    page = st.number_input(
        f"Page (of {pages:,}, {size:,} rows each)",
        min_value=1,
        max_value=pages,
        value=1,
        step=1,
        key=key,
    )
    start = (min(int(page), pages) - 1) * size
    return frame.iloc[start : start + size], start
