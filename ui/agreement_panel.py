"""The live agreement side panel: headline figures for the current field, redrawn as
labels arrive.

A read-only ``st.fragment(run_every=...)``: each tick (every second on Annotate, where
labels arrive, and until the first figures are there; else every 15 s) reads the cheap
``store.data_version``. The figures are
computed off the request path (``common.latest``), once per data version for every open
tab: until the new ones are ready the panel keeps the last ones with an "updating" mark,
so a submit shows in the panel within a tick and never holds up the next item.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation_store import Store
from common.latest import Latest
from common.run_gate import in_background
from reports.panel import panel_fields, panel_summary, shown_field
from ui.chart_preload import preload_charts
from ui.context import get_store
from ui.panel_refresh import mark_slot, refresh_button
from ui.shared_inputs import shared_inputs

FIELD_KEY = "agreement_field"
#: Session key of the human reference picked on the Agreement page (ui.reference_view).
REFERENCE_KEY = "agreement_reference"
REFRESH = "15s"
#: The tick on Annotate: a submit shows in the panel within about a second.
LIVE_REFRESH = "1s"
#: How long a tick waits for new figures before it draws the last ones as updating.
WAIT_S = 0.3
#: How long the first draw waits: not at all, it says the figures are being computed and
#: ticks every second until they are there (a fresh server's Home does not wait for the
#: statistics stack to load, issue #47).
FIRST_WAIT_S = 0.0
#: The newest figures per (url, project, field, reference), shared by every session.
LIVE: Latest[dict[str, Any]] = Latest(max_keys=64, submit=in_background)
UPDATING = ":gray[:material/sync: updating with the newest labels…]"


@st.cache_resource(show_spinner=False)
def _store_for(url: str) -> Store:
    return Store(url)


@st.cache_data(show_spinner=False, max_entries=64, ttl=3600)
def cached_summary(
    url: str, project: str, version: str, field: str | None, reference: str = "majority"
) -> dict[str, Any]:
    """Panel figures at data ``version``."""
    return _summary(_store_for(url), project, version, field, reference)


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


def _summary(
    store: Store, project: str, version: str, field: str | None, reference: str
) -> dict[str, Any]:
    inputs = shared_inputs(store, project, version, reference)
    return panel_summary(store, project, field, reference=reference, inputs=inputs)


def _key(store: Store, project: str, field: str | None, reference: str) -> tuple:
    """The figures' key, with the field the panel shows for ``field``: Home (no field
    picked yet) and the Agreement page (its first field picked) share one computation."""
    return (store.url, project, shown_field(panel_fields(store, project), field), reference)


def live_summary(
    url: str,
    project: str,
    version: str,
    field: str | None,
    reference: str,
    prompt: bool = False,
) -> tuple[dict[str, Any] | None, bool]:
    """The panel figures for ``version`` if ready within a short wait (none when
    ``prompt``: a redraw the client asked for right after a submit), else the last ones
    (None before the first) and True: newer ones are being computed in the background."""
    store = _store_for(url)  # here: a cached resource is not read from the worker thread
    key = _key(store, project, field, reference)
    snap = LIVE.get(
        key,
        version,
        lambda: _summary(store, project, version, key[2], reference),
        wait=(0.0 if prompt else WAIT_S) if LIVE.has(key) else FIRST_WAIT_S,
    )
    return snap.value, snap.updating


def _picked_key(project_name: str) -> tuple:
    """The figures' key for this session's field and reference."""
    return _key(
        get_store(),
        project_name,
        st.session_state.get(FIELD_KEY),
        st.session_state.get(REFERENCE_KEY, "majority"),
    )


def _body(project_name: str, live: bool = False) -> None:
    """The panel; ``live``: with the annotation client's controls (ui/panel_refresh.py),
    whose press draws the last figures as updating rather than wait for the new ones."""
    store = get_store()
    version = store.data_version(project_name)
    prompt = False
    if live:
        prompt = refresh_button("agreement")
        mark_slot("agreement", version)
    s, updating = live_summary(
        store.url,
        project_name,
        version,
        st.session_state.get(FIELD_KEY),
        st.session_state.get(REFERENCE_KEY, "majority"),
        prompt,
    )
    if s is None:
        st.markdown("**Agreement**")
        st.caption(":gray[:material/sync: computing the figures…]")
        return
    st.markdown(f"**Agreement** · `{s['field'] or '—'}`")
    if updating:
        st.caption(UPDATING)
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


@st.fragment(run_every=REFRESH)
def _panel(project_name: str) -> None:
    _body(project_name)


@st.fragment(run_every=LIVE_REFRESH)
def _starting_panel(project_name: str) -> None:
    """The panel until its first figures are there: it ticks every second to pick them up
    (the page's next run draws the 15 s one)."""
    _body(project_name)


@st.fragment(run_every=LIVE_REFRESH)
def _live_panel(project_name: str) -> None:
    _body(project_name, live=True)


def agreement_panel(project_name: str, live: bool = False) -> None:
    """Draw the panel (call it inside ``with st.sidebar:``), ticking every second when
    ``live`` (the Annotate page); and, as only those who see it may open the chart pages,
    have the browser load the chart library while idle."""
    if live:
        _live_panel(project_name)
    elif LIVE.has(_picked_key(project_name)):
        _panel(project_name)
    else:
        _starting_panel(project_name)
    preload_charts()
