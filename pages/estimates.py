"""Estimates page: what people would say about each system, from few labels and a judge
(human-only, judge-only, PPI++ and, for binary fields, the corrected rate), the
differences between systems and how many more labels a target interval needs."""

from __future__ import annotations

import streamlit as st

from estimates.figures import estimates_chart
from estimates.frames import (
    differences_frame,
    estimates_frame,
    formats_of,
    method_notes,
    plans_frame,
    verdict_lines,
)
from ui.context import get_store, require_project
from ui.estimates_panel import FIELD_KEY, JUDGE_KEY, cached_choices, cached_table, picked
from ui.tables import dash_missing, number_columns
from workbench_api.data import ApiError

project = require_project()
store = get_store()
version = store.data_version(project.name)
st.title(f"Estimates · {project.name}")
choices = cached_choices(store.url, project.name, version)
if not choices:
    st.info(
        "No evaluator has scored a numeric or binary field of this project yet. Run one on "
        "the **Evaluate** page, or import scores on the **Data** page."
    )
    st.stop()

field, judge = picked(choices)
cols = st.columns(3)
field = cols[0].selectbox("Field", list(choices), index=list(choices).index(field), key=FIELD_KEY)
judge = cols[1].selectbox(
    "Judge", choices[field], index=choices[field].index(picked(choices)[1]), key=JUDGE_KEY
)
target = cols[2].number_input(
    "Target half-width (plan)",
    min_value=0.0,
    max_value=10.0,
    value=0.05,
    step=0.01,
    key="estimates_target",
    help="0: no plan",
)
try:
    table = cached_table(store.url, project.name, version, field, judge, target or None)
except ApiError as exc:
    st.error(str(exc))
    st.stop()
st.caption(
    f"**{field}** ({table.field_type}), judge **{table.evaluator}**; human reference: "
    f"{table.meta['reference']}. " + method_notes()
)
chart = estimates_chart(table)
if chart.data:
    st.plotly_chart(chart, width="stretch", key="estimates_chart")
else:
    st.caption("No estimate has an interval yet: the table says what each one needs.")
frame = estimates_frame(table)
frame, config = dash_missing(frame, number_columns(formats_of(frame)))
st.dataframe(frame, column_config=config, hide_index=True, key="estimates_table")
for line in verdict_lines(table):
    st.caption(line)
if table.meta.get("weighted"):
    st.caption(
        "Labels come from an active-selection sample: estimates are inverse-probability "
        "weighted (Zrnic and Candès 2024); labels outside the sample are not used."
    )
if table.differences:
    st.subheader("Differences between systems")
    frame = differences_frame(table)
    frame, config = dash_missing(frame, number_columns(formats_of(frame)))
    st.dataframe(frame, column_config=config, hide_index=True, key="estimates_differences")
if table.plans:
    st.subheader("How many more human labels?")
    frame = plans_frame(table)
    frame, config = dash_missing(frame, number_columns(formats_of(frame)))
    st.dataframe(frame, column_config=config, hide_index=True, key="estimates_plans")
    st.caption(
        "PPI++: from its two variance terms (the judge's part does not shrink with labels). "
        "Correlation and alpha: their bootstrap half-width shrinks as 1/sqrt(n)."
    )
