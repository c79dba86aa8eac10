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
from ui.context import get_store

FIELD_KEY = "agreement_field"
REFRESH = "15s"


@st.cache_resource(show_spinner=False)
def _store_for(url: str) -> Store:
    return Store(url)


@st.cache_data(show_spinner=False, max_entries=64, ttl=3600)
def cached_summary(url: str, project: str, version: str, field: str | None) -> dict[str, Any]:
    """Panel figures; ``version`` is only part of the cache key."""
    return panel_summary(_store_for(url), project, field)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _count(value: float) -> str:
    """A count, or a mean count over runs (up to two decimals: 1.5 stays 1.5)."""
    return f"{round(value, 2):g}"


def bias_text(e: dict[str, Any]) -> str:
    """Over/under-estimation counts with the number of items they are counted over."""
    if e.get("over") is None:
        return ""
    runs = e.get("bias_runs") or 1
    per = f", mean of {runs} runs" if runs > 1 else ""
    return f" · bias: over {_count(e['over'])} / under {_count(e['under'])} of n {e['bias_n']}{per}"


@st.fragment(run_every=REFRESH)
def _panel(project_name: str) -> None:
    store = get_store()
    version = store.data_version(project_name)
    s = cached_summary(store.url, project_name, version, st.session_state.get(FIELD_KEY))
    st.markdown(f"**Agreement** · `{s['field'] or '—'}`")
    if s["field"] is None:
        st.caption("No human field in this project.")
        return
    c1, c2 = st.columns(2)
    c1.metric(f"α {s['level']}", _num(s["alpha"]), help=s["alpha_reason"])
    c2.metric("Fleiss κ", _num(s["kappa"]), help=s["kappa_reason"])
    st.caption(
        f"α: {s['n_pairable']} pairable of {s['n_items']} items · "
        f"κ: {s['kappa_n']} items · {s['n_ratings']} ratings"
    )
    for e in s["evaluators"]:
        why = f" ({e['reason']})" if e["reason"] else ""
        st.caption(
            f"**{e['evaluator']}** r {_num(e['pearson'])} · ρ {_num(e['spearman'])} · "
            f"τ {_num(e['kendall'])} · n {e['n']}{bias_text(e)}{why}"
        )


def agreement_panel(project_name: str) -> None:
    """Draw the panel (call it inside ``with st.sidebar:``)."""
    _panel(project_name)
