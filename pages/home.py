"""Home: what the workbench does and the projects with their counts (annotators: their
own projects and counts only)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation_store.own_projects import own_projects
from kinds import get_kind
from ui.context import PROJECT_KEY, current_user, get_store, has_role

# Until a session has run st.navigation, Streamlit routes the pages/ folder, so /home can
# run without app.py's sign-in: go through app.py, or stop when nobody is signed in.
current_user()
store = get_store()
st.title("Metric-audit workbench")
st.caption(
    "Collect human judgments, run automatic evaluators on the same items, and see "
    "where the metrics and people agree, item by item and fact by fact."
)

if has_role("admin", "reviewer"):
    summaries = store.project_summaries()
    rows = [
        {
            "project": s.name,
            "kind": get_kind(s.kind).title,
            "items": s.items,
            "annotators": s.annotators,
            "submitted labels": s.submitted_labels,
            "drafts": s.draft_labels,
            "evaluator results": s.evaluator_results,
        }
        for s in summaries
    ]
    empty = (
        "No projects yet. Create one on the **Data** page, or load the demo with "
        "`python cli.py demo`."
    )
else:  # an annotator sees their own projects and their own counts only
    rows = [
        {
            "project": p.name,
            "kind": get_kind(p.kind).title,
            "items": p.items,
            "assigned to you": p.assigned,
            "your submitted labels": p.submitted_labels,
            "your drafts": p.draft_labels,
        }
        for p in own_projects(store, current_user().name)
    ]
    empty = (
        "You have no items or labels yet. Pick a project in the sidebar and open "
        "**Annotate** to get your first item."
    )
if not rows:
    st.info(empty)
    st.stop()

table = pd.DataFrame(rows)
st.subheader("Projects")
st.dataframe(table, hide_index=True, width="stretch")

current = st.session_state.get(PROJECT_KEY)
if current:
    st.subheader(f"Continue with {current}")
    links = [("pages/annotate.py", "Annotate", ":material/edit_note:")]
    if has_role("admin", "reviewer"):
        links += [
            ("pages/agreement.py", "Agreement", ":material/query_stats:"),
            ("pages/audit.py", "Audit disagreements", ":material/troubleshoot:"),
            ("pages/evaluate.py", "Run evaluators", ":material/smart_toy:"),
        ]
    for col, (path, label, icon) in zip(st.columns(4), links, strict=False):
        col.page_link(path, label=label, icon=icon)
