"""Annotator quality and exclusions of one project (drawn on the Progress page)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation_store import Store
from ui.context import current_user
from ui.tables import dash_missing

COLUMNS = {
    "n_labels": st.column_config.NumberColumn("labels"),
    "n_gold": st.column_config.NumberColumn("gold labels"),
    "gold_accuracy": st.column_config.NumberColumn("gold accuracy", format="%.3f"),
    "loo_agreement": st.column_config.NumberColumn(
        "agrees with others' majority",
        format="%.3f",
        help="Share of labels equal to the majority of the item's other annotators",
    ),
    "dawid_skene": st.column_config.NumberColumn(
        "Dawid-Skene", format="%.3f", help="Expected accuracy from the confusion matrix"
    ),
    "mace": st.column_config.NumberColumn(
        "MACE", format="%.3f", help="Probability that the annotator knows the answer"
    ),
}
WHY = {
    "gold_accuracy": "no gold item labelled",
    "loo_agreement": "no item whose other annotators agree",
}


@st.cache_data(show_spinner="Estimating annotator quality…", max_entries=16, ttl=3600)
def _table(url: str, project: str, version: str) -> dict:
    """The quality table, computed once per data version (EM over every label)."""
    from reports.quality import annotator_table
    from ui.agreement_panel import _store_for

    return annotator_table(_store_for(url), project)


def quality_section(store: Store, project: str) -> None:
    """The quality table per nominal field, the exclusions and the controls to change them."""
    st.subheader(f"{project} · annotator quality")
    table = _table(store.url, project, store.data_version(project))
    if not table["fields"]:
        st.caption("No binary or categorical field: nothing to aggregate.")
    for name, entry in table["fields"].items():
        rows = pd.DataFrame(entry["annotators"])
        if rows.empty:
            st.caption(f"`{name}`: no submitted labels yet.")
            continue
        rows["excluded"] = [
            "; ".join(f"{e['source']}: {e['reason']}" for e in ex) for ex in rows["excluded"]
        ]
        rows = rows.drop(columns=["n_loo"])
        shown, config = dash_missing(rows, COLUMNS, WHY)
        n_gold = entry["n_gold_items"]
        st.caption(f"`{name}` · {n_gold} gold item{'' if n_gold == 1 else 's'}")
        st.dataframe(shown, hide_index=True, width="stretch", column_config=config)
    _exclusion_controls(store, project)


def _exclusion_controls(store: Store, project: str) -> None:
    excluded = store.exclusions(project)
    people = sorted(store.annotations_frame(project)["annotator"].unique())
    with st.form("exclude_annotator", clear_on_submit=True):
        st.markdown("**Exclude an annotator** from the agreement figures")
        who = st.selectbox("Annotator", people, index=None, key="exclude_who")
        reason = st.text_input("Reason", key="exclude_reason")
        if st.form_submit_button("Exclude"):
            if who is None or not reason.strip():
                st.error("Pick an annotator and give a reason.")
            else:
                store.exclude_annotator(project, who, reason, by=current_user().name)
                st.rerun()
    for i, rec in enumerate(excluded):
        left, right = st.columns([4, 1])
        left.caption(f"**{rec.annotator}** · {rec.source}: {rec.reason}")
        if right.button("Include", key=f"include_{i}_{rec.annotator}_{rec.source}"):
            store.include_annotator(project, rec.annotator, rec.source)
            st.rerun()
