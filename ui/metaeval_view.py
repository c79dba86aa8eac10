"""The Agreement page's Meta-evaluation tab: pick the field and the item columns that name
systems and inputs, then the tables per level with CIs, the significance clusters and the
segment-vs-system chart. The numbers come from ``reports.metaeval_data``; the tables and
the chart from ``reports.metaeval_section`` and ``reports.metaeval_figure``."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agreement.views import scored_fields
from reports.metaeval_data import configured
from reports.metaeval_figure import level_scatter
from reports.metaeval_section import INTRO, LEVEL_TITLES, cluster_lines, level_notes, level_table

NONE = "(none: no group level)"


@st.cache_data(show_spinner=False, max_entries=8, ttl=3600)
def _compute(
    url: str,
    project: str,
    version: str,
    field: str,
    group: str | None,
    system: str,
    resamples: int,
    reference: str,
) -> dict[str, Any]:
    from agreement.metaeval.grid import MetaEvalError
    from ui.agreement_panel import _store_for
    from workbench_api.metaeval import metaeval

    try:
        doc = metaeval(
            _store_for(url),
            project,
            field,
            reference=reference,
            group=group,
            system=system,
            n_resamples=resamples,
        )
    except MetaEvalError as e:
        return {"error": str(e)}
    return doc.to_dict()


def _item_columns(store: Any, project: str) -> list[str]:
    keys: dict[str, None] = {}
    for item in store.items_page(project, 0, 200):
        keys.update(
            dict.fromkeys(k for k, v in (item.fields or {}).items() if isinstance(v, (str, int)))
        )
    return list(keys)


def metaeval_section(
    store: Any,
    project: str,
    version: str,
    data: dict[str, Any],
    resamples: int,
    reference: str,
    charts: Any,
) -> None:
    """Draw the tab."""
    st.caption(INTRO)
    fields = scored_fields(data)
    if not fields:
        st.caption("No evaluator has scores to meta-evaluate yet.")
        return
    # the project's own columns (setting ``metaeval``) are the first choice; the agreement
    # document does not carry the meta-evaluation (computed here, where it is shown)
    preset = configured(store.project(project).settings) or {}
    columns = _item_columns(store, project)
    c1, c2, c3 = st.columns(3)
    field = c1.selectbox(
        "Field",
        fields,
        index=fields.index(preset["field"]) if preset.get("field") in fields else 0,
        key="metaeval_field",
    )
    systems = ["generator", *columns]
    system = c2.selectbox(
        "Systems (item column)",
        systems,
        index=systems.index(preset["system"]) if preset.get("system") in systems else 0,
        key="metaeval_system",
    )
    groups = [NONE, *columns]
    group = c3.selectbox(
        "Groups: the input an item answers",
        groups,
        index=groups.index(preset["group"]) if preset.get("group") in groups else 0,
        key="metaeval_group",
    )
    with st.spinner("Meta-evaluating…", show_time=True):
        meta = _compute(
            store.url,
            project,
            version,
            field,
            None if group == NONE else group,
            system,
            resamples,
            reference,
        )
    if "error" in meta:
        st.warning(meta["error"], icon=":material/warning:")
        return
    for level, title in LEVEL_TITLES.items():
        header, rows = level_table(meta, level)
        st.subheader(title)
        if rows:
            st.dataframe(pd.DataFrame(rows, columns=header), hide_index=True, width="stretch")
        for note in level_notes(meta, level):
            st.caption(note)
    st.subheader("Significance clusters")
    for line in cluster_lines(meta) or ["Fewer than two evaluators to rank."]:
        st.markdown(f"- {line}")
    for note in meta.get("notes", []):
        st.caption(note)
    fig = level_scatter(meta)
    if fig is not None:
        charts.add(fig)
