"""The Alignment page's drift history: every ``alignment --check`` of the project, per
judge version and model."""

from __future__ import annotations

import streamlit as st

from alignment.drift import history_frame
from alignment.drift_records import checks
from ui.context import get_store


def drift_history_section(project: str) -> None:
    """The check history table, or how to start one."""
    st.header("Drift checks")
    frame = history_frame(checks(get_store(), project))
    if frame.empty:
        st.caption(
            f"No drift check yet. `workbench alignment {project} --check` re-judges a "
            "judge's anchor items with the cache bypassed and compares them with its stored "
            "answers and the people (exit 1 below the bar, for CI)."
        )
        return
    config = {
        c: st.column_config.NumberColumn(c, format="%.3f")
        for c in ("agreement", "kappa", "people κ before", "people κ now")
    }
    st.dataframe(frame, column_config=config, hide_index=True, key="alignment_drift")
    st.caption(
        "One row per check, newest first within each judge version and model: agreement "
        "and Cohen's kappa of today's answers with the stored ones on the anchors, the "
        "kappa with the people's majority before and now, how many anchors moved, and "
        "the bar the check was held to."
    )
