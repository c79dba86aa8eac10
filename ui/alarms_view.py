"""Data-quality alarms of a project, each with a one-click exclusion (Agreement, Progress)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from annotation_store import Store
from ui.context import current_user, has_role

#: The exclusion source of an annotator excluded from an alarm.
SOURCE = "alarm"


@st.cache_data(show_spinner="Checking the labels for data-quality alarms…", max_entries=16)
def cached_alarms(url: str, project: str, version: str) -> list[dict[str, Any]]:
    """The project's alarms, computed once per data version."""
    from reports.data import project_alarms
    from ui.agreement_panel import _store_for

    return project_alarms(_store_for(url), project)


def alarms_section(
    store: Store, project: str, alarms: Sequence[dict[str, Any]], where: str
) -> None:
    """The alarms counted per kind in one line, and one warning per alarm one click away
    (an expander); admins get an "Exclude" button per annotator it names, which records
    the alarm's sentence as the reason (undo: Progress page, Include)."""
    if not alarms:
        return
    from agreement.alarms import alarm_summary

    st.subheader("Data-quality alarms")
    st.warning(alarm_summary(list(alarms)), icon="⚠️")
    admin = has_role("admin")
    box = st.expander(f"All {len(alarms)} alarms", expanded=len(alarms) <= 3)
    for i, alarm in enumerate(alarms):
        box.warning(alarm["sentence"], icon="⚠️")
        if not admin:
            continue
        cols = box.columns(max(1, len(alarm["annotators"])))
        for col, who in zip(cols, alarm["annotators"], strict=False):
            if col.button(f"Exclude {who}", key=f"alarm_{where}_{i}_{who}"):
                store.exclude_annotator(
                    project, who, alarm["sentence"], source=SOURCE, by=current_user().name
                )
                st.rerun()
