"""Metric-audit workbench: the Streamlit entry point (router, sidebar, sign-in)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from common import run_gate
from common.redact import install_log_redaction
from common.registry import never_wait_for_plugins
from ui import app_style
from ui.agreement_panel import agreement_panel
from ui.auth import authenticate
from ui.background import release_idle_memory, start_background_work
from ui.context import ENTRY_KEY, PROJECT_KEY, forward_deep_link, get_store, has_role
from ui.estimates_panel import estimates_panel
from ui.last_project import last_used, remember_script
from ui.narrow_layout import fold_sidebar_when_narrow
from ui.navigation_mode import SIDEBAR_NAVIGATION
from ui.page_index import PAGES, default_project
from ui.study.entry import crowd_project, run_study_session

ICON = str(Path(__file__).resolve().parent / "ui" / "assets" / "icon.png")
install_log_redaction()
never_wait_for_plugins()  # a plugin slow to import shows up later, never holds up a page
# The tab's icon is served by the app itself (a :material/ icon there would be fetched
# from a third-party font host by every page).
st.set_page_config(page_title="Metric-audit workbench", page_icon=ICON, layout="wide")
app_style.apply()  # readable primary buttons on every page, sign-in and studies included

st.session_state[ENTRY_KEY] = True
store = get_store()
user = authenticate(store)
if crowd_project():  # a worker from a study link sees their study and nothing else
    run_study_session(store)


def _project_picker() -> None:
    names = [p.name for p in store.projects()]
    wanted = default_project(
        names, st.session_state.get(PROJECT_KEY) or st.query_params.get("project"), last_used()
    )
    if not names:
        st.sidebar.caption("No projects yet.")
        st.session_state[PROJECT_KEY] = None
        return
    choice = st.sidebar.selectbox(
        "Project", names, index=names.index(wanted), key="_project_picker"
    )
    st.session_state[PROJECT_KEY] = choice
    if st.query_params.get("project") != choice:
        st.query_params["project"] = choice


_project_picker()
st.sidebar.caption(f"Signed in as **{user.name}** ({user.role})")


def _no_access_page(script: str, title: str) -> st.Page:
    """A hidden stand-in at the page's address, so a deep link to a page this user may
    not open says so instead of Streamlit's "Page not found"."""

    def no_access() -> None:
        st.title(title)
        st.error("You do not have access to this page.", icon=":material/block:")

    url_path = script.removeprefix("pages/").removesuffix(".py")
    return st.Page(no_access, title=title, url_path=url_path, visibility="hidden")


# Blind by default: annotators never see other people's labels or evaluator outputs
# (the Annotate page shows those per item, after submit, when the project allows it).
pages: dict[str, list[st.Page]] = {}
for entry in PAGES:
    if entry.roles is None or has_role(*entry.roles):
        page_obj = st.Page(
            entry.script, title=entry.title, icon=entry.icon, default=entry.url_path == "home"
        )
        pages.setdefault(entry.group, []).append(page_obj)
    else:
        pages["Work"].append(_no_access_page(entry.script, entry.title))

page = st.navigation(pages)
# .streamlit/config.toml hides the sidebar page list so that a fresh server's first run
# (Streamlit's pages/-folder mode, before the line above) does not flash one entry per
# file. serve.py (make run) shows it before any run (ui.navigation_mode); under
# `streamlit run app.py` the list is ours once st.navigation has run: show it and rerun.
if not st.get_option(SIDEBAR_NAVIGATION):
    st.set_option(SIDEBAR_NAVIGATION, True)
    st.rerun()
forward_deep_link(p for group in pages.values() for p in group)

# The panel shows evaluator figures, so annotators (blind by default) do not get it.
# It is drawn after the page, into a place kept for it above the page's own sidebar
# widgets: after a submit its figures are recomputed, and the next item must not wait
# for them (bench/annotate_latency.py). ``finally``: pages that end with st.stop() too.
panel_slot = (
    st.sidebar.container()
    if st.session_state.get(PROJECT_KEY) and has_role("admin", "reviewer")
    else None
)
# Background work (the panels' figures, the warm-ups, the job worker) waits until this
# page is drawn (common.run_gate).
with run_gate.page_run():
    try:
        page.run()
    finally:
        if panel_slot is not None:
            with panel_slot:
                live = page.url_path == "annotate"  # where labels arrive: tick every second
                agreement_panel(st.session_state[PROJECT_KEY], live=live)
                estimates_panel(st.session_state[PROJECT_KEY], live=live)
        # last in the sidebar: a script's element keeps a small gap, at the end it moves nothing
        fold_sidebar_when_narrow(remember_script(st.session_state.get(PROJECT_KEY)))
        # Once the page is drawn (on 2 cores an earlier start slowed the first page down,
        # issue #47): the process's job worker starts with the first session, so jobs queued
        # before a restart go on without anyone opening the Evaluate page (off with
        # WORKBENCH_JOBS_IN_APP=0); the Agreement page's libraries load while the user
        # reads the page (a sign-in form starts them too, ui.auth); and for those who see
        # the analysis pages, the project's bootstrap resamples are drawn.
        start_background_work(st.session_state[PROJECT_KEY] if panel_slot is not None else None)
        # the page's cached bootstrap draws compact, and the heap glibc keeps handed back
        release_idle_memory()
