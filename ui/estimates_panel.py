"""The live estimates in the side panel: PPI++ per system, redrawn as labels arrive.

Like the agreement panel, a read-only fragment that re-reads the cheap
``store.data_version`` every tick (every second on Annotate, and until the first
estimates are there) and computes the estimates
off the request path once per data version, field and judge (``common.latest``), drawing
the last ones with an "updating" mark meanwhile. The field and judge are the ones picked
on the Estimates page, else the first scored field and its newest judge version.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation_store import Store
from common.latest import Latest
from common.run_gate import in_background
from estimates.table import EstimateTable
from ui.context import get_store
from ui.panel_refresh import mark_slot, refresh_button
from ui.shared_inputs import shared_inputs
from workbench_api.data import ApiError
from workbench_api.estimates import estimate, estimate_choices

FIELD_KEY = "estimates_field"
JUDGE_KEY = "estimates_judge"
REFRESH = "15s"
LIVE_REFRESH = "1s"
WAIT_S = 0.3
#: The first draw does not wait: it ticks every second until the estimates are there.
FIRST_WAIT_S = 0.0
#: (field, judge, table) per (url, project, picked field, picked judge); None: no judge.
LIVE: Latest[tuple[str, str, EstimateTable] | None] = Latest(max_keys=64, submit=in_background)
UPDATING = ":gray[:material/sync: updating with the newest labels…]"


@st.cache_data(show_spinner=False, max_entries=32, ttl=3600)
def cached_choices(url: str, project: str, version: str) -> dict[str, list[str]]:
    """Scored fields and their judges at data ``version``."""
    store = get_store()
    return estimate_choices(store, project, shared_inputs(store, project, version))


@st.cache_data(show_spinner=False, max_entries=32, ttl=3600)
def cached_table(
    url: str, project: str, version: str, field: str, judge: str, target: float | None = None
) -> EstimateTable:
    """The estimates per system at data ``version``."""
    store = get_store()
    inputs = shared_inputs(store, project, version)
    return estimate(store, project, field, judge, by_generator=True, target=target, inputs=inputs)


def picked(choices: dict[str, list[str]]) -> tuple[str, str]:
    """The field and judge in the session if still valid, else the defaults."""
    return pick(choices, st.session_state.get(FIELD_KEY), st.session_state.get(JUDGE_KEY))


def pick(choices: dict[str, list[str]], field: Any, judge: Any) -> tuple[str, str]:
    """``field`` and ``judge`` if ``choices`` offer them, else the first field and its
    newest judge."""
    if field not in choices:
        field = next(iter(choices))
    if judge not in choices[field]:
        judge = choices[field][-1]
    return field, judge


def _compute(
    store: Store, project: str, version: str, field: Any, judge: Any
) -> tuple[str, str, EstimateTable] | None:
    inputs = shared_inputs(store, project, version)
    choices = estimate_choices(store, project, inputs)
    if not choices:
        return None
    field, judge = pick(choices, field, judge)
    return field, judge, estimate(store, project, field, judge, by_generator=True, inputs=inputs)


def _line(name: str, t: EstimateTable) -> str:
    g = next(x for x in t.groups if x.group == name)
    e = g.ppi
    assert e.estimate is not None and e.ci is not None
    return (
        f"**{name}** {e.estimate:.3f} [{e.ci[0]:.3f}, {e.ci[1]:.3f}] · "
        f"n {g.n_human} people / {g.n_judge} judged"
    )


def _key(url: str, project_name: str) -> tuple:
    """The estimates' key: this session's picked field and judge."""
    return (url, project_name, st.session_state.get(FIELD_KEY), st.session_state.get(JUDGE_KEY))


def _body(project_name: str, live: bool = False) -> None:
    """The panel; ``live``: with the annotation client's controls (ui/panel_refresh.py),
    whose press draws the last figures as updating rather than wait for the new ones."""
    store = get_store()
    version = store.data_version(project_name)
    prompt = refresh_button("estimates") if live else False
    wanted = (st.session_state.get(FIELD_KEY), st.session_state.get(JUDGE_KEY))
    key = _key(store.url, project_name)
    try:
        snap = LIVE.get(
            key,
            version,
            lambda: _compute(store, project_name, version, *wanted),
            wait=(0.0 if prompt else WAIT_S) if LIVE.has(key) else FIRST_WAIT_S,
        )
    except ApiError as exc:
        st.caption(f"Estimates: {exc}")
        return
    if snap.value is None:  # no judge scored a field (or not computed yet)
        return
    field, judge, t = snap.value
    if live:
        mark_slot("estimates", version)
    st.markdown(f"**Estimates (PPI++)** · `{field}` · {judge}")
    if snap.updating:
        st.caption(UPDATING)
    for line in panel_lines(t):
        st.caption(line)


@st.fragment(run_every=REFRESH)
def _panel(project_name: str) -> None:
    _body(project_name)


@st.fragment(run_every=LIVE_REFRESH)
def _starting_panel(project_name: str) -> None:
    """The panel until its first estimates are there, ticking every second to pick them up
    (the page's next run draws the 15 s one)."""
    _body(project_name)


@st.fragment(run_every=LIVE_REFRESH)
def _live_panel(project_name: str) -> None:
    _body(project_name, live=True)


def estimates_panel(project_name: str, live: bool = False) -> None:
    """Draw the panel (inside ``with st.sidebar:``), ticking every second when ``live``
    (the Annotate page); nothing when no judge scored a field."""
    if live:
        _live_panel(project_name)
    elif LIVE.has(_key(get_store().url, project_name)):
        _panel(project_name)
    else:
        _starting_panel(project_name)


def panel_lines(t: EstimateTable) -> list[str]:
    """A line per system with an estimate; systems without one share a line per reason,
    so a reason is said once, not once per system."""
    lines: list[str] = []
    missing: dict[str, list[str]] = {}
    for g in t.groups:
        e = g.ppi
        if e.estimate is None or e.ci is None:
            missing.setdefault(str(e.reason), []).append(f"{g.group} (n {g.n_human}/{g.n_judge})")
        else:
            lines.append(_line(g.group, t))
    for reason, names in missing.items():
        lines.append(f"No estimate yet for {', '.join(names)}: {reason}")
    return lines
