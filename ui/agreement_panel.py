"""The live agreement side panel: headline figures for the current field, redrawn as
labels arrive.

A read-only ``st.fragment(run_every=...)``: each tick reads the cheap
``store.data_version``; the computation is cached on (project, version, field) with
``st.cache_data``, so every open tab shares one computation per data version.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation_store import Store
from reports.panel import panel_summary
from ui.chart_preload import preload_charts
from ui.context import get_store

FIELD_KEY = "agreement_field"
#: Session key of the human reference picked on the Agreement page (ui.reference_view).
REFERENCE_KEY = "agreement_reference"
REFRESH = "15s"


@st.cache_resource(show_spinner=False)
def _store_for(url: str) -> Store:
    return Store(url)


@st.cache_data(show_spinner=False, max_entries=64, ttl=3600)
def cached_summary(
    url: str, project: str, version: str, field: str | None, reference: str = "majority"
) -> dict[str, Any]:
    """Panel figures; ``version`` is only part of the cache key."""
    if reference == "majority":  # the default reference: the call it always was
        return panel_summary(_store_for(url), project, field)
    return panel_summary(_store_for(url), project, field, reference=reference)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _items_note_change(project_name: str, s: dict[str, Any]) -> None:
    """Say which items a measure uses (Fleiss' kappa's modal-count items), and why its n
    changed since the last redraw (an item that gains a rater leaves the modal group)."""
    note = s.get("items_note")
    if not note:
        return
    key = f"agreement_items_n::{project_name}::{s['field']}::{note['key']}"
    before = st.session_state.get(key)
    st.session_state[key] = note["n"]
    if before is not None and before != note["n"]:
        st.caption(f"{note['label']} n changed from {before} to {note['n']}: {note['text']}")
    else:
        st.caption(note["text"])


def _count(value: float) -> str:
    """A count, or a mean count over runs (up to two decimals: 1.5 stays 1.5)."""
    return f"{round(value, 2):g}"


def bias_text(e: dict[str, Any]) -> str:
    """Own-model counts first, then over/under-estimation counts over all items."""
    if e.get("over") is None:
        return ""
    runs = e.get("bias_runs") or 1
    per = f", mean of {runs} runs" if runs > 1 else ""
    own = f"{e['bias_own']}; " if e.get("bias_own") else ""
    return (
        f" · bias: {own}all: over {_count(e['over'])} / under {_count(e['under'])} "
        f"of n {e['bias_n']}{per}"
    )


@st.fragment(run_every=REFRESH)
def _panel(project_name: str) -> None:
    store = get_store()
    version = store.data_version(project_name)
    s = cached_summary(
        store.url,
        project_name,
        version,
        st.session_state.get(FIELD_KEY),
        st.session_state.get(REFERENCE_KEY, "majority"),
    )
    st.markdown(f"**Agreement** · `{s['field'] or '—'}`")
    if s["field"] is None:
        st.caption("No human field in this project.")
        return
    stats = s["statistics"]
    head = s.get("headline") or {}
    lead = next((x for x in stats if x["label"] == head.get("label")), None)
    if lead is not None:
        st.metric(lead["label"], lead["text"], help=lead["reason"] or head["why"])
        st.caption(f"n {lead['n_text']} · {s['n_ratings']} ratings · {head['why']}")
        if head.get("unstable"):
            st.caption(f":gray[:material/warning: {head['unstable']}]")
    others = [x for x in stats if x is not lead]
    if others:
        with st.expander("Other statistics", expanded=lead is None):
            for x in others:
                st.caption(f"**{x['label']}** {x['text']} · n {x['n_text']}")
            _items_note_change(project_name, s)
    if s.get("exclusions"):
        with_them = " · ".join(f"{x['label']} {x['text']}" for x in s["with_excluded"])
        st.caption(f"{s['exclusions']} With them: {with_them}" if with_them else s["exclusions"])
    for e in s["evaluators"]:
        why = f" ({e['reason']})" if e["reason"] else ""
        figures = " · ".join(f"{x['label']} {_num(x['value'])}" for x in e["measures"])
        st.caption(f"**{e['evaluator']}** {figures} · n {e['n']}{bias_text(e)}{why}")


def agreement_panel(project_name: str) -> None:
    """Draw the panel (call it inside ``with st.sidebar:``); and, as only those who see it
    may open the chart pages, have the browser load the chart library while idle."""
    _panel(project_name)
    preload_charts()
