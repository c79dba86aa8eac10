"""Alignment page: every version of every evaluator against the humans on one field, the
headline figure by version, reliability and bias probes (with a probe-run button), an
evaluation card, and a version diff with autocalibration."""

from __future__ import annotations

import contextlib
from typing import Any

import pandas as pd
import streamlit as st

from alignment import figures
from alignment.card import card_markdown, evaluation_card
from alignment.diff import (
    default_card,
    default_pair,
    diff_refusal,
    diff_summary,
    version_diff,
)
from alignment.diff_rows import diff_formats, diff_headers
from alignment.frames import (
    confusion_frame,
    headline_name,
    price_note,
    probe_help,
    probes_formats,
    probes_frame,
    undrawn_versions,
    versions_formats,
    versions_frame,
)
from alignment.inputs import AlignmentError, FieldInputs, load_field
from alignment.judge_vs_judge import JUDGE_VS_JUDGE_FORMATS, judge_vs_judge_frame
from alignment.label_diff import label_diff
from alignment.table import alignment_table
from ui.autocalibration_view import autocalibration_control
from ui.context import get_store, require_project
from ui.drift_view import drift_history_section
from ui.escalation_view import escalation_section
from ui.probe_runs import probe_control
from ui.robustness_view import robustness_section
from ui.shared_inputs import shared_inputs
from ui.tables import DASH, dash_missing, number_columns, with_help, without_empty_columns
from workbench_api.autocalibration import field_step

NO_DECISIONS = (
    "Decisions flip on a binary field (score ≥ 0.5 or not) or a categorical one (the "
    "label); this field is graded, so the diff shows how scores moved instead."
)

FIELD_KEY = "alignment_field"


@st.cache_data(show_spinner=False, max_entries=16, ttl=3600)
def _document(
    url: str, project: str, version: str, field: str | None, resamples: int
) -> dict[str, Any]:
    """The alignment document, once per data version, field and resamples (``url`` and
    ``version`` are only part of the cache key); the field's inputs are the version diff's
    (read once, not once for each)."""
    try:
        inputs = _field(url, project, version, field)
    except AlignmentError:  # not a numeric field: the table reads what it needs
        inputs = None
    return alignment_table(get_store(), project, field, n_resamples=resamples, inputs=inputs)


@st.cache_resource(show_spinner=False, max_entries=8, ttl=3600)
def _field(url: str, project: str, version: str, field: str | None) -> FieldInputs:
    """The field's inputs (None: the default field) for the table and the version diff
    (read-only), from the project's inputs the other pages share."""
    store = get_store()
    return load_field(store, project, field, inputs=shared_inputs(store, project, version))


project = require_project()
store = get_store()
data_version = store.data_version(project.name)
st.title(f"Alignment · {project.name}")
resamples = st.sidebar.select_slider(
    "Bootstrap resamples", [0, 200, 1000], value=1000, key="alignment_resamples"
)


def _load() -> tuple[dict[str, Any], str | None]:
    """The document for the picked field, and the field it was asked for (None: the
    default); a field another project had falls back to the default field."""
    picked = st.session_state.get(FIELD_KEY)
    with st.spinner("Comparing every evaluator version with the humans…", show_time=True):
        try:
            return _document(store.url, project.name, data_version, picked, resamples), picked
        except AlignmentError:
            if picked is None:
                raise
            st.session_state.pop(FIELD_KEY, None)
            return _document(store.url, project.name, data_version, None, resamples), None


try:
    doc, doc_field_arg = _load()
except AlignmentError as exc:
    st.info(f"{exc}. Run a judge or another evaluator on the **Evaluate** page.")
    st.stop()
if len(doc["fields"]) > 1:
    st.selectbox("Field", doc["fields"], key=FIELD_KEY)
if doc["field_type"] == "pairwise":
    from ui.pairwise_alignment import pairwise_section

    pairwise_section(project.name, doc)
    st.stop()
st.caption(
    f"**{doc['field']}** ({doc['field_type']}): one row per evaluator version (a version run "
    f"with several signatures has one row per signature). Headline: {headline_name(doc['headline'])}, "
    "95% percentile bootstrap CIs over items."
)
frame, undefined = without_empty_columns(versions_frame(doc))
frame, config = dash_missing(
    frame,
    number_columns(versions_formats(doc)),
    why={
        "mean cost": "no model tokens used (imported or local scores)",
        "why undefined": "the headline is defined",
    },
)
st.dataframe(frame, column_config=config, hide_index=True, key="alignment_versions")
if undefined:
    st.caption(f"Undefined for every version here, so not shown: {', '.join(undefined)}.")
for row in doc["versions"]:
    if row["excluded"]["n"]:
        why = "; ".join(f"{i}: {r}" for i, r in (row["excluded"].get("reasons") or {}).items())
        st.caption(
            f"**{row['label']}**: {row['excluded']['n']} item(s) excluded, "
            f"{row['excluded']['reason']} ({why})."
        )
    for flag in ((row.get("binary") or {}).get("flags") or {}).values():
        st.caption(f":material/warning: **{row['label']}**: {flag}.")
    if note := price_note(row):
        st.caption(f"**{row['label']}**: {note}.")
if doc["versions"]:
    st.plotly_chart(figures.headline_chart(doc), width="stretch")
    for line in undrawn_versions(doc):
        st.caption(f"Not in the chart: {line}.")
for row in doc["versions"]:
    confusion = confusion_frame(row)
    if confusion is not None:
        st.caption(f"**{row['label']}**: people's majority label (rows) by the judge's (columns)")
        st.dataframe(confusion, key=f"alignment_confusion_{row['label']}")

st.header("Reliability and bias probes")
# Columns no version has a figure for are left out and named once; what each column
# means is its header's help, not a paragraph.
frame, not_measured = without_empty_columns(probes_frame(doc))
frame, config = dash_missing(
    frame, with_help(number_columns(probes_formats()), probe_help(doc["meta"]["epsilon"]))
)
st.dataframe(frame, column_config=config, hide_index=True, key="alignment_probes")
st.caption(
    "Each figure's n is beside it; point at a column's name for what it measures."
    + (f" Not measured for any version yet: {', '.join(not_measured)}." if not_measured else "")
)
probe_control(project.name, doc["versions"])
for row in doc["versions"]:
    fig = figures.reliability_diagram(row["label"], row["probes"]["calibration"])
    if fig is not None:
        st.plotly_chart(fig, width="stretch")

st.header("Judge vs judge")
if doc.get("judge_vs_judge"):
    frame, config = dash_missing(
        judge_vs_judge_frame(doc),
        number_columns(JUDGE_VS_JUDGE_FORMATS),
    )
    st.dataframe(frame, column_config=config, hide_index=True, key="alignment_judge_vs_judge")
    st.caption(
        "Does A agree with the people better than B on the items both scored? A - B of the "
        "headline figure with a paired bootstrap 95% CI (the same items drawn for both) and "
        "a two-sided p; a CI that excludes 0 is a finding."
    )
else:
    st.caption("The paired test needs two versions that scored this field.")

labels = [r["label"] for r in doc["versions"]]
if labels:
    st.header("Evaluation card")
    card_label = st.selectbox(
        "Version", labels, index=default_card(doc["versions"]), key="alignment_card"
    )
    card = card_markdown(evaluation_card(doc, card_label))
    with st.container(border=True):
        st.markdown(card.split("\n", 1)[1])
    st.download_button(
        "Download the card (Markdown)",
        card,
        file_name=f"card-{card_label.replace(' ', '-').replace(':', '-')}.md",
        mime="text/markdown",
        key="alignment_card_download",
    )
    try:  # the inputs the table was computed from, for a numeric field
        field_inputs = _field(store.url, project.name, data_version, doc_field_arg)
    except AlignmentError:
        field_inputs = None
    escalation_section(
        project.name,
        data_version,
        doc["field"],
        labels,
        default_card(doc["versions"]),
        field_inputs,
    )
    robustness_section(project.name, doc["versions"], default_card(doc["versions"]))

drift_history_section(project.name)

st.header("Version diff")
if len(labels) < 2:
    st.caption("A diff needs two versions.")
    st.stop()
for key in ("alignment_diff_a", "alignment_diff_b"):
    if st.session_state.get(key) not in labels:
        st.session_state.pop(key, None)  # a version of another project or field
cols = st.columns(2)
first, second = default_pair(doc["versions"])
a = cols[0].selectbox("From", labels, index=first, key="alignment_diff_a")
b = cols[1].selectbox("To", labels, index=second, key="alignment_diff_b")


def _diff(label_a: str, label_b: str) -> pd.DataFrame:
    """The item-by-item diff of two versions (or of one version with itself)."""
    if doc["field_type"] == "categorical":
        return label_diff(store, project.name, doc["field"], label_a, label_b)
    # the inputs the table was computed from (read under the field it was asked for)
    inputs = _field(store.url, project.name, data_version, doc_field_arg)
    return version_diff(inputs, label_a, label_b)


row_b = doc["versions"][labels.index(b)]
binary_field = doc["field_type"] == "binary"
step = field_step(project, doc["field"])  # how far off a score counts as corrected
if refusal := diff_refusal(doc["versions"], a, b):
    st.info(refusal, icon=":material/info:")
    # Autocalibration needs only the "to" version and the people, not a second version.
    with contextlib.suppress(AlignmentError):
        autocalibration_control(project.name, row_b, _diff(b, b), binary_field, step)
    st.stop()
try:
    diff = _diff(a, b)
except AlignmentError as exc:
    st.caption(f"No item-by-item diff here: {exc}.")
    st.stop()
s = diff_summary(diff)
full = diff
m = st.columns(4)
m[0].metric("Items in both", s["n"])
m[1].metric("Toward the humans", s["toward"])
m[2].metric("Away from them", s["away"])
# A graded score has no decision to flip: a 0 there would read as "none flipped".
decisions = doc["field_type"] in ("binary", "categorical")
m[3].metric(
    "Decisions flipped",
    s["flipped"] if decisions else DASH,
    help=None if decisions else NO_DECISIONS,
)
shows = ["moved", "flipped", "all"] if decisions else ["moved", "all"]
if st.session_state.get("alignment_diff_show") not in (*shows, None):
    st.session_state.pop("alignment_diff_show")  # "flipped", kept from a binary field
show = st.segmented_control("Show", shows, default="moved", key="alignment_diff_show")
if show == "moved":
    diff = diff[diff["movement"].isin(["toward", "away"]) | diff["fact_changes"].map(bool)]
elif show == "flipped":
    diff = diff[diff["flipped"]]
table = diff.assign(
    fact_changes=diff["fact_changes"].map(
        lambda xs: "; ".join(f"{x['fact']}: {x['a']}→{x['b']}" for x in xs)
    )
)
frame, config = dash_missing(
    table.rename(columns=diff_headers(a, b)),
    number_columns(diff_formats(table, a, b)),
)
st.dataframe(frame, column_config=config, hide_index=True, key="alignment_diff")
autocalibration_control(project.name, row_b, full, binary_field, step)
