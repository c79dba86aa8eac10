"""Audit: where each evaluator and the people part ways, item by item, and why."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from annotation_store import ProjectInfo
from audit.analysis import (
    AGREE,
    CATEGORIES,
    CATEGORY,
    EVAL_FAILED,
    HUMANS_DISAGREE,
    METRIC_DIFFERS,
    AuditTable,
    build_audit_table,
    comparable_fields,
    filter_audit,
    uncompared_text,
    with_labels,
)
from common.csv_safe import csv_bytes
from evaluators.registry import registry_scales
from study_inputs.load import all_scores
from study_inputs.references import combined_reference
from ui.agreement_panel import _store_for
from ui.audit.drilldown import render_drilldown
from ui.audit.paging import page_slice
from ui.audit.report_view import report_section
from ui.context import current_user, get_store, require_project
from ui.reference_view import reference_select
from ui.shared_inputs import shared_inputs
from ui.tables import dash_missing

SELECTED = "audit_item"
LAST_CLICK = "_audit_last_click"


@st.cache_resource(max_entries=2, show_spinner=False, ttl=3600)
def _store_frames(url: str, name: str, version: str) -> dict:
    """The store frames the table is built from, read once per data version and shared
    by every rerun and session (a resource: not copied per rerun; nothing mutates it).
    The labels are the ones the other analysis pages read (``load_labels``), from their
    shared read, and so are the scores when that read left none out (``all_scores``)."""
    store = _store_for(url)
    inputs = shared_inputs(store, name, version)
    return {
        "items": store.items(name),
        "annotations": inputs.annotations,
        "scores": all_scores(store, name, inputs),
        "results": store.result_status_frame(name),
    }


@st.cache_resource(max_entries=8, show_spinner=False, ttl=3600)
def _reference(
    url: str, name: str, version: str, use_reference: bool, method: str
) -> pd.DataFrame | None:
    """The aggregated labels (Dawid-Skene / MACE) on nominal fields, then the adjudicated
    ones where asked: the same reference as the Agreement page's."""
    return combined_reference(_store_for(url), name, method, use_reference)


def _frames(url: str, name: str, version: str, use_reference: bool, method: str) -> dict:
    """The store frames and the reference the table compares with."""
    return {
        **_store_frames(url, name, version),
        "reference": _reference(url, name, version, use_reference, method),
    }


@st.cache_data(max_entries=16, show_spinner=False, ttl=3600)
def _labels_by_field(url: str, name: str, version: str) -> dict[str, list[str]]:
    """Evaluator configuration labels per scored field, labelled once per data version
    (a rerun for a row click does not label every score row again)."""
    scores = _store_frames(url, name, version)["scores"]
    if scores.empty:
        return {}
    labelled = with_labels(scores)[["field", "label"]].drop_duplicates()
    out: dict[str, list[str]] = {}
    for fname, group in labelled.groupby("field", sort=True):
        out[str(fname)] = sorted(group["label"].unique())
    return out


# A resource, not data: a rerun gets the same table object back instead of unpickling a
# 10,000-row copy (the page only reads it; filters make new frames).
@st.cache_resource(max_entries=16, show_spinner=False, ttl=3600)
def _audit_table(
    url: str,
    _project: ProjectInfo,
    project_key: str,
    version: str,
    use_reference: bool,
    method: str,
    field: str,
    chosen: tuple[str, ...],
    thresholds: tuple[float, float],
) -> AuditTable:
    """The audit table of ``field``, built once per data version and set of choices (a
    rerun for a row click or a filter reuses it); ``project_key`` stands for the project
    (name, kind, settings) in the cache key."""
    data = _frames(url, _project.name, version, use_reference, method)
    return build_audit_table(
        _project.task_kind,
        _project.settings,
        data["items"],
        data["annotations"],
        data["scores"],
        data["results"],
        field,
        evaluators=list(chosen),
        evaluator_scales=registry_scales(chosen, field),
        reference=data["reference"],
        agree_threshold=thresholds[0],
        differ_threshold=thresholds[1],
    )


store = get_store()
project = require_project()
user = current_user()
kind = project.task_kind

st.title("Metric audit", anchor=False)
st.caption(
    f"{project.name} · {kind.title}. Each row is an item: the people's value, each "
    "evaluator's score (mean over runs) and **Δ = evaluator − people** on a common 0-1 "
    "scale. The table starts with the largest disagreement; click a row to see why."
)

use_reference = st.toggle(
    "Compare against adjudicated labels",
    key="audit_use_reference",
    help="Use the final labels (adjudicated, else the clear majority) instead of the "
    "people's mean wherever an item has one.",
)
method = reference_select()
own_reference = use_reference or method != "majority"
version = store.data_version(project.name)
data = _frames(store.url, project.name, version, use_reference, method)
if data["scores"].empty and data["results"].empty:
    st.info(
        "No evaluator results yet. Run evaluators on the **Evaluate** page, or import "
        "scores on the **Data** page.",
        icon=":material/smart_toy:",
    )
    st.page_link("pages/evaluate.py", label="Run evaluators", icon=":material/smart_toy:")
    st.stop()

fields = comparable_fields(kind, project.settings, data["scores"])
labels_of = _labels_by_field(store.url, project.name, version)
c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
field = c1.selectbox(
    "Compare on",
    fields,
    key="audit_field",
    help="A human field or a score derived from the labels (F1 ...)",
)
scored = labels_of.get(field, [])
chosen = c2.multiselect("Evaluators", scored, default=scored, key=f"audit_evaluators_{field}")
with c3.popover("Thresholds", icon=":material/tune:", width="stretch"):
    agree_t = st.slider(
        "People agree when their spread is at most", 0.0, 1.0, 0.25, 0.05, key="audit_agree_t"
    )
    differ_t = st.slider("A metric differs from |Δ| of", 0.0, 1.0, 0.25, 0.05, key="audit_differ_t")

table = _audit_table(
    store.url,
    project,
    json.dumps([project.name, kind.name, project.settings], sort_keys=True, default=str),
    version,
    use_reference,
    method,
    field,
    tuple(chosen),
    (agree_t, differ_t),
)
frame = table.frame

# The kinds get a row of their own: beside the two filters, at 1024 px, the last two
# were cut off in a scrolling strip.
cats = st.pills(
    "Kind of disagreement",
    [c for c in CATEGORIES if c in set(frame[CATEGORY])],
    selection_mode="multi",
    key="audit_categories",
    help="Empty: every row",
)
f2, f3 = st.columns(2)
gens = sorted(frame["generator"].fillna("(none)").unique())
splits = sorted(frame["split"].fillna("(none)").unique())
gen_pick = f2.multiselect("Generator", gens, key="audit_generators", placeholder="all")
split_pick = f3.multiselect("Split", splits, key="audit_splits", placeholder="all")
shown = filter_audit(
    frame, categories=cats or None, generators=gen_pick or None, splits=split_pick or None
).reset_index(drop=True)

counts = frame[CATEGORY].value_counts()
m = st.columns(4)
m[0].metric(
    "Metric differs",
    int(counts.get(METRIC_DIFFERS, 0)),
    help="People agree with each other, an evaluator does not",
)
m[1].metric("People disagree", int(counts.get(HUMANS_DISAGREE, 0)))
m[2].metric("Evaluator failed", int(counts.get(EVAL_FAILED, 0)))
m[3].metric("Agree", int(counts.get(AGREE, 0)))
if uncounted := uncompared_text(counts):
    st.caption(uncounted)

lo, hi = table.scale
config = {
    "item_id": st.column_config.TextColumn("item", pinned=True),
    "annotators": st.column_config.NumberColumn("people", help="annotators with a value"),
    "human_mean": st.column_config.NumberColumn("people mean", format="%.2f"),
    "human_majority": st.column_config.Column("majority"),
    "human_spread": st.column_config.NumberColumn(
        "people spread", format="%.2f", help="max − min of the people, on 0-1"
    ),
    "human": st.column_config.NumberColumn(
        "compared with", format="%.2f", help="the people's mean, or the final label"
    ),
    "human_source": st.column_config.TextColumn("from"),
    "disagreement": st.column_config.ProgressColumn(
        "disagreement",
        min_value=0.0,
        max_value=1.0,
        format="%.2f",
        help="largest |Δ| over the chosen evaluators, on 0-1",
    ),
    "category": st.column_config.TextColumn("kind"),
    "failed": st.column_config.TextColumn("failed"),
}
for lab in table.evaluators:
    config[lab] = st.column_config.NumberColumn(lab, format="%.2f")
    config[f"Δ {lab}"] = st.column_config.NumberColumn(f"Δ {lab}", format="%+.2f")
# What matters first: the item, the kind of disagreement, how large, then the evidence.
shown_cols = [
    "item_id",
    "category",
    "disagreement",
    *[f"Δ {lab}" for lab in table.evaluators],
    *table.evaluators,
    *(["human", "human_source"] if own_reference else []),
    "human_mean",
    "human_majority",
    "human_spread",
    "annotators",
    "generator",
    "split",
    "failed",
]


def _majority_text(page: pd.DataFrame) -> pd.DataFrame:
    """The majority column as text (numbers with two decimals), for the drawn page only."""
    return page.assign(
        human_majority=[
            v if isinstance(v, str) or v is None else f"{v:.2f}" for v in page["human_majority"]
        ]
    )


def _lists(shown: pd.DataFrame, item_id: str | None) -> bool:
    """Whether the shown rows hold ``item_id`` (one comparison over the column, not a set
    of its 10,000 ids built on every row click)."""
    return item_id is not None and bool((shown["item_id"] == item_id).any())


# A row click, a page of the table or a drill-down widget reruns only this part: the
# filters, counts and the table's frame above are not recomputed (issue #47).
@st.fragment
def _table_and_drilldown(shown: pd.DataFrame, frame: pd.DataFrame, config: dict) -> None:
    st.caption(f"**{len(shown)}** of {len(frame)} items · field `{field}` (scale {lo:g}-{hi:g})")
    page_view, first = page_slice(shown[shown_cols], "audit_page")
    shown_table, page_config = dash_missing(
        _majority_text(page_view), config, {"split": "no split given", "generator": "not given"}
    )
    event = st.dataframe(
        shown_table,
        hide_index=True,
        width="stretch",
        height=min(420, 38 + 35 * max(len(page_view), 1)),
        column_config=page_config,
        on_select="rerun",
        selection_mode="single-row",
        key="audit_table",
    )
    rows = list(event.selection.rows) if event is not None else []
    # The table keeps its selected row *position* when the rows re-sort (the reference
    # toggle, a filter, another page): only a new click picks an item, so the open item
    # stays open.
    if rows and rows != st.session_state.get(LAST_CLICK) and first + rows[0] < len(shown):
        st.session_state[SELECTED] = str(shown.loc[first + rows[0], "item_id"])
    st.session_state[LAST_CLICK] = rows

    d1, d2 = st.columns([1, 3])
    d1.download_button(
        "Download table (CSV)",
        lambda: csv_bytes(shown),  # written on click, not on every rerun
        file_name=f"{project.name}-audit-{field}.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
        key="audit_csv",
    )

    selected = st.session_state.get(SELECTED)
    if not _lists(shown, selected):
        selected = str(shown.loc[0, "item_id"]) if not shown.empty else None
        if selected is not None:
            st.session_state[SELECTED] = selected  # stays open when the table re-sorts
            st.caption("Showing the most disagreeing item; click a row to open another.")
    st.divider()
    if selected is not None:
        row = frame.loc[frame["item_id"] == selected].iloc[0].to_dict()
        render_drilldown(project, selected, user, row, compared=field)


_table_and_drilldown(shown, frame, config)
selected = st.session_state.get(SELECTED)
if not _lists(shown, selected):
    selected = None
st.divider()
report_section(
    store,
    project.name,
    list(shown["item_id"]),
    selected,
    data["reference"].copy() if own_reference else None,
    pd.DataFrame(shown),
)
