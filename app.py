"""Metric-audit workbench: the Streamlit entry point (router, sidebar, sign-in)."""

from __future__ import annotations

import streamlit as st

from ui.agreement_panel import agreement_panel
from ui.audit.jobs_view import get_worker
from ui.auth import authenticate
from ui.context import ENTRY_KEY, PROJECT_KEY, forward_deep_link, get_store, has_role

st.set_page_config(
    page_title="Metric-audit workbench", page_icon=":material/balance:", layout="wide"
)

st.session_state[ENTRY_KEY] = True
store = get_store()
user = authenticate(store)
# The process's job worker starts with the first session, so jobs queued before a restart
# go on without anyone opening the Evaluate page (off with WORKBENCH_JOBS_IN_APP=0).
get_worker()


def _project_picker() -> None:
    names = [p.name for p in store.projects()]
    wanted = st.session_state.get(PROJECT_KEY) or st.query_params.get("project")
    if wanted not in names:
        wanted = names[0] if names else None
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

pages = {
    "Work": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/annotate.py", title="Annotate", icon=":material/edit_note:"),
    ],
}
# Blind by default: annotators never see other people's labels or evaluator outputs
# (the Annotate page shows those per item, after submit, when the project allows it).
if has_role("admin", "reviewer"):
    pages["Analyse"] = [
        st.Page("pages/agreement.py", title="Agreement", icon=":material/query_stats:"),
        st.Page("pages/audit.py", title="Audit", icon=":material/troubleshoot:"),
        st.Page("pages/evaluate.py", title="Evaluate", icon=":material/smart_toy:"),
    ]
if has_role("admin"):
    pages["Manage"] = [
        st.Page("pages/data.py", title="Data", icon=":material/database:"),
        st.Page("pages/progress.py", title="Progress", icon=":material/monitoring:"),
        st.Page("pages/admin.py", title="Users & settings", icon=":material/settings:"),
    ]

page = st.navigation(pages)
# .streamlit/config.toml hides the sidebar page list so that a fresh server's first run
# (Streamlit's pages/-folder mode, before the line above) does not flash one entry per
# file. Once st.navigation has run, the list is ours: show it, from the next run on.
if not st.get_option("client.showSidebarNavigation"):
    st.set_option("client.showSidebarNavigation", True)
    st.rerun()
forward_deep_link(p for group in pages.values() for p in group)

# The panel shows evaluator figures, so annotators (blind by default) do not get it.
if st.session_state.get(PROJECT_KEY) and has_role("admin", "reviewer"):
    with st.sidebar:
        agreement_panel(st.session_state[PROJECT_KEY])

page.run()
