"""The fact grid: fact x {annotators, majority, evaluators}, disagreeing facts highlighted."""

from __future__ import annotations

import pandas as pd
import streamlit as st

# A dark text colour of its own: on a dark theme the default text is white, which is
# unreadable on the light highlight. On the highlight C / M take darker shades of their
# colours (the usual green is 4.0:1 on it; these are above 7:1, checked in a browser test).
FLAG_BG = "background-color: #fde2c4; color: #3d2400; font-weight: 600"
C_STYLE = "color: #1b7f3b"
M_STYLE = "color: #b42318"
FLAG_C_STYLE = "color: #14532d"
FLAG_M_STYLE = "color: #7f1d1d"
SIDE_TITLES = {
    "gold_facts": "Gold facts (recall)",
    "predicted_facts": "Predicted facts (precision)",
}


def _style(grid: pd.DataFrame):  # -> pandas Styler
    """Colour C / M and highlight the evaluator cells (and fact) that differ from the majority."""
    flagged_by = grid["differs"].fillna("")

    def row_style(row: pd.Series) -> list[str]:
        out = []
        culprits = set(filter(None, (s.strip() for s in flagged_by[row.name].split(","))))
        for col, value in row.items():
            css = C_STYLE if value == "C" else M_STYLE if value == "M" else ""
            if col in culprits or (col == "fact" and culprits):
                dark = FLAG_C_STYLE if value == "C" else FLAG_M_STYLE if value == "M" else ""
                css = f"{FLAG_BG}; {dark}" if dark else FLAG_BG
            out.append(css)
        return out

    return grid.style.apply(row_style, axis=1)


def render_fact_grid(grid: pd.DataFrame, evaluators: list[str], *, key: str) -> None:
    """Draw a fact grid (from ``audit.analysis.fact_grid``), one table per side."""
    if grid.empty:
        st.caption("No facts on this item yet (Bi-Fact decomposes them on its first run).")
        return
    n_flagged = int(grid["flagged"].sum())
    if n_flagged:
        st.markdown(
            f":orange-background[**{n_flagged} fact(s)**] where an evaluator differs "
            "from the human majority (highlighted)."
        )
    else:
        st.caption("No fact where an evaluator differs from a clear human majority.")
    for side, part in grid.groupby("side", sort=False):
        st.markdown(f"**{SIDE_TITLES.get(str(side), str(side))}**")
        shown = part.drop(columns=["side", "flagged"]).reset_index(drop=True)
        shown["index"] = shown["index"] + 1
        shown = shown.rename(columns={"index": "#", "flagged_by": "differs"})
        st.dataframe(
            _style(shown),
            hide_index=True,
            width="stretch",
            key=f"{key}-{side}",
            column_config={"fact": st.column_config.TextColumn("fact", width="medium")},
        )
