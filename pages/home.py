"""Home: what the workbench does and every project with its counts."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation_store import assignments as asg
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

summaries = store.project_summaries()
if not summaries:
    st.info(
        "No projects yet. Create one on the **Data** page, or load the demo with "
        "`python cli.py demo`."
    )
    st.stop()

table = pd.DataFrame(
    [
        {
            "project": s.name,
            "kind": get_kind(s.kind).title,
            "items": s.items,
            "annotators": s.annotators,
            # Items x annotators, as Progress counts them; answers are single label fields.
            "submitted items": asg.project_progress(store, s.name)["submitted"],
            "submitted answers": s.submitted_labels,
            "draft answers": s.draft_labels,
            "evaluator results": s.evaluator_results,
        }
        for s in summaries
    ]
)
st.subheader("Projects")
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        "submitted items": st.column_config.NumberColumn(
            help="Items submitted, counted once per annotator (as on Progress)"
        ),
        "submitted answers": st.column_config.NumberColumn(
            help="Submitted label fields: one per question an annotator answered"
        ),
    },
)

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
