"""The human-reference selector and the excluded-annotators note of the agreement views."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.agreement_panel import REFERENCE_KEY
from ui.tables import dash_missing

REFERENCE_NAMES = {
    "majority": "People's mean / majority",
    "dawid_skene": "Dawid-Skene labels",
    "mace": "MACE labels",
}


def current_reference() -> str:
    """The reference picked on the Agreement page (default: majority)."""
    return st.session_state.get(REFERENCE_KEY, "majority")


def reference_select() -> str:
    """Sidebar select box: what evaluators are compared with on nominal fields."""
    return st.sidebar.selectbox(
        "Human reference",
        list(REFERENCE_NAMES),
        format_func=REFERENCE_NAMES.get,
        key=REFERENCE_KEY,
        help="What evaluators are compared with on binary and categorical fields: the "
        "people's mean and majority, or labels aggregated by Dawid-Skene or MACE "
        "(which weigh annotators by their estimated competence).",
    )


def excluded_section(data: dict[str, Any]) -> None:
    """Who is excluded and why, and (folded) the figures with their labels."""
    from agreement.exclusions import exclusion_line
    from reports.render import STAT_HEADER, statistic_rows

    st.info(exclusion_line(data["exclusions"]) + " The figures leave them out.")
    with st.expander("Figures with the excluded annotators"):
        rows = statistic_rows(data["exclusions"]["with_excluded"])
        table, config = dash_missing([dict(zip(STAT_HEADER, r, strict=True)) for r in rows])
        st.dataframe(table, hide_index=True, width="stretch", column_config=config)
