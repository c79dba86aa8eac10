"""A paged table of a project's items (only the rows of the page shown are read), and the
progress bar of an items import."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from annotation_store import ItemRecord, Store
from ui.tables import dash_missing

PAGE_SIZES = (25, 50, 100, 200)
PREVIEW_CHARS = 120


def items_page_frame(items: list[ItemRecord]) -> pd.DataFrame:
    """One row per item: id, split, generator, then one column per item field, each
    value as short readable text (lists joined, objects as ``key: value``)."""
    names = list(dict.fromkeys(k for it in items for k in it.fields if k != "generator"))
    return pd.DataFrame(
        [
            {
                "item_id": it.item_id,
                "split": it.split,
                "generator": it.generator,
                **{n: _cell(it.fields[n]) for n in names if n in it.fields},
            }
            for it in items
        ],
        columns=["item_id", "split", "generator", *names],
    )


def _cell(value: Any) -> str:
    """A field value as one short line of text."""
    if isinstance(value, dict):
        text = " · ".join(f"{k}: {_cell(v)}" for k, v in value.items())
    elif isinstance(value, list):
        text = " · ".join(_cell(v) for v in value) if value else "(empty)"
    elif value is None:
        text = ""
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def items_browser(store: Store, project: str) -> None:
    """Page through the project's items (the page number and size live in the session)."""
    total = store.item_count(project)
    if not total:
        st.caption("No items yet.")
        return
    left, right = st.columns([1, 1])
    size = right.selectbox("Rows per page", PAGE_SIZES, index=1, key="items_page_size")
    pages = max(1, math.ceil(total / size))
    page = left.number_input(
        f"Page (of {pages:,})", min_value=1, max_value=pages, value=1, step=1, key="items_page"
    )
    first = (int(page) - 1) * size
    rows = store.items_page(project, offset=first, limit=size)
    st.caption(f"Items {first + 1:,}–{first + len(rows):,} of {total:,}")
    table, config = dash_missing(
        items_page_frame(rows), why={"split": "no split given", "generator": "not given"}
    )
    st.dataframe(table, hide_index=True, width="stretch", column_config=config, key="items_table")


def bar_update(bar: Any) -> Callable[[int, int, str], None]:
    """An import's ``on_progress`` that moves a ``st.progress`` bar."""

    def update(done: int, total: int, phase: str) -> None:
        if phase == "checking":
            bar.progress(
                min(done / max(total, 1), 1.0) * 0.8, text=f"Checked {done:,} of {total:,} rows"
            )
        elif phase == "writing":
            bar.progress(0.8, text=f"Writing {total:,} rows")
        else:
            bar.progress(1.0, text=f"Imported {total:,} rows")

    return update
