"""Audit exports: the agreement report with the drill-down of chosen items."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation_store import Store

REPORT_KEY = "audit_report"


def report_section(
    store: Store,
    project: str,
    item_ids: list[str],
    selected: str | None,
    reference: pd.DataFrame | None,
    table: pd.DataFrame,
) -> None:
    """Pick items and build the agreement report (HTML) carrying their drill-down."""
    st.markdown("#### Report")
    st.caption(
        "The agreement report with the drill-down of the items you pick (their fields, "
        "every annotator's labels and every evaluator output)."
        + (
            " Agreement is computed against the **adjudicated labels**."
            if reference is not None
            else ""
        )
    )
    default = [selected] if selected in item_ids else item_ids[:1]
    picked = st.multiselect(
        "Items in the drill-down", item_ids, default=default, key="audit_report_items"
    )
    c1, c2 = st.columns([1, 3])
    if c1.button("Build report", icon=":material/description:", key="audit_report_build"):
        from reports import build_report, render_report  # heavy: imported when used

        # The command line's resamples and seed, so the figures match `cli.py report`.
        with st.spinner("Computing agreement…"):
            from alignment.report_section import alignment_for_report

            report = build_report(
                store,
                project,
                item_ids=picked,
                reference=reference,
                alignment=alignment_for_report(store, project),
            )
            st.session_state[REPORT_KEY] = (project, tuple(picked), render_report(report, "html"))
    built = st.session_state.get(REPORT_KEY)
    if built and built[0] == project:
        c2.download_button(
            f"Download report ({len(built[1])} item(s) drilled down)",
            built[2].encode("utf-8"),
            file_name=f"{project}-audit-report.html",
            mime="text/html",
            icon=":material/download:",
            on_click="ignore",
            key="audit_report_download",
        )
