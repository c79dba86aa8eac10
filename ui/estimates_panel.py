"""The live estimates in the side panel: PPI++ per system, redrawn as labels arrive.

Like the agreement panel, a read-only fragment that re-reads the cheap
``store.data_version`` every tick; the estimates are cached per data version, field and
judge. The field and judge are the ones picked on the Estimates page, else the first
scored field and its newest judge version.
"""

from __future__ import annotations

import streamlit as st

from estimates.table import EstimateTable
from ui.context import get_store
from workbench_api.data import ApiError
from workbench_api.estimates import estimate, estimate_choices

FIELD_KEY = "estimates_field"
JUDGE_KEY = "estimates_judge"
REFRESH = "15s"


@st.cache_data(show_spinner=False, max_entries=32, ttl=3600)
def cached_choices(url: str, project: str, version: str) -> dict[str, list[str]]:
    """Scored fields and their judges (``url`` and ``version`` only key the cache)."""
    return estimate_choices(get_store(), project)


@st.cache_data(show_spinner=False, max_entries=32, ttl=3600)
def cached_table(
    url: str, project: str, version: str, field: str, judge: str, target: float | None = None
) -> EstimateTable:
    """The estimates per system (``url`` and ``version`` only key the cache)."""
    return estimate(get_store(), project, field, judge, by_generator=True, target=target)


def picked(choices: dict[str, list[str]]) -> tuple[str, str]:
    """The field and judge in the session if still valid, else the defaults."""
    field = st.session_state.get(FIELD_KEY)
    if field not in choices:
        field = next(iter(choices))
    judge = st.session_state.get(JUDGE_KEY)
    if judge not in choices[field]:
        judge = choices[field][-1]
    return field, judge


def _line(name: str, t: EstimateTable) -> str:
    g = next(x for x in t.groups if x.group == name)
    e = g.ppi
    assert e.estimate is not None and e.ci is not None
    return (
        f"**{name}** {e.estimate:.3f} [{e.ci[0]:.3f}, {e.ci[1]:.3f}] · "
        f"n {g.n_human} people / {g.n_judge} judged"
    )


@st.fragment(run_every=REFRESH)
def estimates_panel(project_name: str) -> None:
    """Draw the panel (inside ``with st.sidebar:``); nothing when no judge scored a field."""
    store = get_store()
    version = store.data_version(project_name)
    choices = cached_choices(store.url, project_name, version)
    if not choices:
        return
    field, judge = picked(choices)
    try:
        t = cached_table(store.url, project_name, version, field, judge)
    except ApiError as exc:
        st.caption(f"Estimates: {exc}")
        return
    st.markdown(f"**Estimates (PPI++)** · `{field}` · {judge}")
    for line in panel_lines(t):
        st.caption(line)


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
