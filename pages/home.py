"""Home: what the workbench does and the projects with their counts (annotators: their
own projects and counts only)."""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd
import streamlit as st

from accounts.own_projects import own_projects
from kinds.registry import kind_title
from studies import assignments as asg
from ui.context import PROJECT_KEY, current_user, get_store, has_role
from ui.page_index import PAGES
from ui.plugin_warnings import show_plugin_warnings

# Until a session has run st.navigation, Streamlit routes the pages/ folder, so /home can
# run without app.py's sign-in: go through app.py, or stop when nobody is signed in.
user = current_user()
store = get_store()
st.title("Metric-audit workbench")
show_plugin_warnings(user.role)
st.caption(
    "Collect human judgments, run automatic evaluators on the same items, and see "
    "where the metrics and people agree, item by item and fact by fact."
)


def _table(records: list, columns: dict[str, str]) -> pd.DataFrame:
    """Records (dataclasses) as a table with the given column titles, kinds by title."""
    frame = pd.DataFrame([asdict(r) for r in records], columns=list(columns))
    frame["kind"] = [kind_title(k) for k in frame["kind"]]
    return frame.rename(columns=columns)


@st.cache_data(show_spinner=False, max_entries=64, ttl=3600)
def _progress(url: str, name: str, version: str, settings: str) -> dict:
    """A project's progress totals, counted once per data version and settings (``url``,
    ``version`` and ``settings`` key the cache): at 10,000 items a count reads every label."""
    return asg.project_progress(store, name)


def _settings_key(name: str) -> str:
    return json.dumps(store.project(name).settings, sort_keys=True, default=str)


def _complete(progress: dict, n_items: int) -> str:
    """``18 / 294``, and ``(+6 gold)`` when gold items make the items column larger."""
    gold = n_items - progress["items"]
    text = f"{progress['complete']} / {progress['items']}"
    return f"{text} (+{gold} gold)" if gold > 0 else text


if has_role("admin", "reviewer"):
    records: list = store.project_summaries()
    columns = {
        "name": "project",
        "kind": "kind",
        "items": "items",
        "annotators": "annotators",
        # short headers (what they count is in the caption below the table)
        "submitted_labels": "answers",
        "draft_labels": "drafts",
        "evaluator_results": "evaluator results",
    }
    empty = (
        "No projects yet. Create one on the **Data** page, or load the demo with "
        "`python cli.py demo`."
    )
else:  # an annotator sees their own projects and their own counts only
    records = own_projects(store, current_user().name)
    columns = {
        "name": "project",
        "kind": "kind",
        "items": "items",
        "assigned": "assigned to you",
        "submitted_labels": "your submitted labels",
        "draft_labels": "your drafts",
    }
    empty = (
        "You have no items or labels yet. Pick a project in the sidebar and open "
        "**Annotate** to get your first item."
    )
if not records:
    st.info(empty)
    st.stop()

table = _table(records, columns)
if "annotators" in columns:
    # The same words and figures as Progress: an item is complete once k people
    # submitted it; a submission is one person submitting one item.
    progress = [
        _progress(store.url, r.name, store.data_version(r.name), _settings_key(r.name))
        for r in records
    ]
    table.insert(
        3, "complete items", [_complete(p, r.items) for p, r in zip(progress, records, strict=True)]
    )
    table.insert(5, "submissions", [p["submitted"] for p in progress])
st.subheader("Projects")
# A static table: a fresh browser loads no data-grid code for it (Home is the first page
# drawn, issue #47), and at any width its headers wrap instead of being cut.
st.table(table, hide_index=True, border="horizontal")

if "annotators" in columns:
    # The same words and figures as Progress.
    st.caption(
        "An item is **complete** once k people (the project's k) submitted it; when you "
        "are one of the k, your own submission counts too. A study's gold items are "
        "checks, counted apart. **Submissions**: one per annotator per submitted item. "
        "**Answers**: submitted label fields, one per question answered. **Drafts**: "
        "label fields saved but not submitted yet."
    )

with st.expander("Where to start: what each page is for", expanded=not has_role("annotator")):
    st.markdown(
        "\n".join(
            f"- **{p.title}**: {p.purpose}"
            for p in PAGES
            if p.url_path != "home" and (p.roles is None or has_role(*p.roles))
        )
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
