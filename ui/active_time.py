"""Active time on an item: wall time minus the time the browser says the page was away.

A small ``st.components.v2`` script counts, per item, the milliseconds the tab was
hidden, the window lost focus, or nobody touched mouse or keys for longer than the idle
threshold (beyond that threshold; the study's ``idle_seconds``, 60 by default). It reports the total only when the worker comes back, so it causes a rerun
only then. If the script never reports (blocked, old browser), the active time is the
wall time since the item was first shown in this session.
"""

from __future__ import annotations

import time

import streamlit as st

from annotation_store import Store
from crowd import study_quality as crowd_quality
from ui.annotation.context import widget_token

JS = """
export default function ({ data, setStateValue }) {
  const s = (window.__workbenchAway = window.__workbenchAway || { away: {} });
  s.item = data.item;
  s.idleMs = data.idle_ms;
  s.report = () => setStateValue("away", { item: s.item, ms: Math.round(s.away[s.item] || 0) });
  if (s.installed) return;
  s.installed = true;
  s.lastInput = Date.now();
  s.since = null;
  const add = (ms) => { s.away[s.item] = (s.away[s.item] || 0) + Math.max(0, ms); };
  const leave = () => { if (s.since === null) s.since = Date.now(); };
  const back = () => {
    const now = Date.now();
    let changed = false;
    if (s.since !== null) { add(now - s.since); s.since = null; changed = true; }
    if (now - s.lastInput > s.idleMs) { add(now - s.lastInput - s.idleMs); changed = true; }
    s.lastInput = now;
    if (changed) s.report();
  };
  document.addEventListener("visibilitychange", () => (document.hidden ? leave() : back()));
  window.addEventListener("blur", leave);
  window.addEventListener("focus", back);
  for (const ev of ["keydown", "pointerdown", "mousemove", "wheel"]) {
    window.addEventListener(ev, () => { if (!document.hidden) back(); },
                            { passive: true, capture: true });
  }
}
"""

_tracker = st.components.v2.component("workbench_active_time", js=JS)


def _started_key(project: str, item_id: str) -> str:
    return f"active_started::{project}::{item_id}"


def _away_key(project: str, item_id: str) -> str:
    return f"active_away::{project}::{item_id}"


def track(project: str, item_id: str, idle_s: int = 60) -> None:
    """Start (or go on) timing ``item_id``; call on every run that shows the item.

    A pause without input longer than ``idle_s`` counts as away beyond ``idle_s``."""
    st.session_state.setdefault(_started_key(project, item_id), time.time())
    # The browser gets an opaque token, never the item id (ids can give answers away).
    token = widget_token(project, item_id)
    result = _tracker(
        key=f"active_time::{token}",
        data={"item": token, "idle_ms": int(idle_s * 1000)},
        height=0,
        on_away_change=lambda: None,
    )
    away = result.get("away") if hasattr(result, "get") else None
    if isinstance(away, dict) and away.get("item") == token:
        ms = away.get("ms")
        if isinstance(ms, int | float) and ms >= 0:
            st.session_state[_away_key(project, item_id)] = ms / 1000


def active_seconds(project: str, item_id: str, now: float | None = None) -> float | None:
    """Seconds the item was in view and in use, or None when it was never tracked."""
    started = st.session_state.get(_started_key(project, item_id))
    if started is None:
        return None
    wall = (now or time.time()) - started
    return round(max(wall - st.session_state.get(_away_key(project, item_id), 0.0), 0.0), 1)


def record(store: Store, project: str, item_id: str, annotator: str) -> None:
    """After a submit: store the item's active time with the annotator's progress."""
    seconds = active_seconds(project, item_id)
    if seconds is not None:
        crowd_quality.record_active_seconds(store, project, item_id, annotator, seconds)
        st.session_state.pop(_started_key(project, item_id), None)
        st.session_state.pop(_away_key(project, item_id), None)
