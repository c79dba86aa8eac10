"""Progress page sections: active time per annotator (with flags) and the study figures."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation_store import ProjectInfo, Store
from crowd import study_quality as crowd_quality
from studies.flow_settings import study_of
from ui.tables import DASH

NO_RATE = (
    "No hourly rate set: give one under Users & settings → Study (Other checks and "
    "limits) to estimate the pay from the active hours."
)


def time_on_task(store: Store, project: ProjectInfo) -> None:
    """Median active time per annotator, with the flags the study's checks raise."""
    medians = crowd_quality.median_active(store, project.name)
    flags: dict[str, list[str]] = {}
    for flag in crowd_quality.crowd_flags(store, project.name):
        flags.setdefault(flag.annotator, []).append(flag.reason)
    if not medians and not flags:
        return
    st.subheader("Time on task and flags")
    names = sorted(set(medians) | set(flags))
    table = pd.DataFrame(
        {
            "annotator": names,
            "median active s / item": [
                f"{medians[n]:.1f}" if n in medians else DASH for n in names
            ],
            "flags": ["; ".join(flags.get(n, [])) or DASH for n in names],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(
        "Active time: the item in view and in use (hidden tab, another window or over a "
        "minute without input do not count)."
    )


def study_dashboard(store: Store, project: ProjectInfo) -> None:
    """Workers started / qualified / completed / flagged, items complete, time and cost,
    and the CSV of completion codes and bonus-eligible workers."""
    study = study_of(project.settings)
    if not study.active:
        return
    figures = crowd_quality.dashboard(store, project.name)
    st.subheader("Study")
    a, b, c, d = st.columns(4)
    a.metric("Workers started", figures["workers_started"])
    b.metric("Qualified", figures["qualified"])
    c.metric("Completed", figures["completed"])
    d.metric("Flagged", figures["flagged"])
    e, f, g, h = st.columns(4)
    e.metric("Items complete (k reached)", f"{figures['items_complete']} / {figures['items']}")
    median = figures["median_active_seconds"]
    f.metric("Median active s / item", DASH if median is None else f"{median:.0f}")
    g.metric("Active hours", f"{figures['active_hours']:.2f}")
    if study.hourly_rate > 0:
        h.metric(
            "Estimated cost",
            f"{figures['estimated_cost']:.2f}",
            help=f"active hours x the study's hourly rate ({study.hourly_rate:g})",
        )
    else:  # 0 is the unset default, not free work
        h.metric("Estimated cost", DASH, help=NO_RATE)
    st.download_button(
        "Completion codes and bonus eligibility (CSV)",
        crowd_quality.completion_csv(store, project.name),
        file_name=f"{project.name}-completions.csv",
        mime="text/csv",
        key="study_completions_csv",
    )
