"""Data: create projects, import items / labels / scores, export them (admins)."""

from __future__ import annotations

import json
from functools import partial

import streamlit as st

from interop.exporting import FRAMES, frame_bytes
from interop.importing import IMPORTERS
from kinds import ValidationError, kind_names
from kinds.registry import kind_title
from ui.context import PROJECT_KEY, current_project, get_store, has_role
from ui.data_import import import_upload
from ui.foreign_import import foreign_import
from ui.items_browser import items_browser

store = get_store()
st.title("Data")
if not has_role("admin"):
    st.warning("Only admins manage data.")
    st.stop()

with st.expander("Create a project", expanded=current_project() is None):
    with st.form("create_project", clear_on_submit=False):
        name = st.text_input("Name")
        declared = [r.ref for r in store.kind_records()]  # the latest version of each
        kind = st.selectbox("Task kind", [*kind_names(), *declared], format_func=kind_title)
        settings_text = st.text_area(
            "Settings (JSON)",
            value='{"k": 3}',
            help='"k": annotators per item; categorical: {"labels": [...]}; '
            'likert: {"min": 1, "max": 5}',
        )
        if st.form_submit_button("Create", type="primary"):
            try:
                settings = json.loads(settings_text or "{}")
                info = store.create_project(name, kind, settings)
            except (json.JSONDecodeError, ValidationError, ValueError) as exc:
                st.error(f"Not created: {exc}")
            else:
                st.session_state[PROJECT_KEY] = info.name
                st.query_params["project"] = info.name
                st.success(f"Created {info.name!r}. Import its items below.")
                st.rerun()

project = current_project()
if project is None:
    st.info("Pick or create a project to import and export its data.")
    st.stop()

kind = project.task_kind
st.subheader(f"Import into {project.name}")
st.caption(
    "CSV, JSONL or Parquet (items). Items: `item_id`, "
    + ", ".join(f"`{f.name}`" for f in kind.item_fields)
    + ", optional `split` (dev/test). Annotations: `item_id, annotator, field, value` "
    "(lists as JSON). Scores: `item_id, evaluator, field, value`, optional `judge_model`, "
    "`run`. A file with one bad row imports nothing."
)
what = st.segmented_control("What", list(IMPORTERS), default="items", key="import_what")
upload = st.file_uploader("File", type=["csv", "tsv", "jsonl", "parquet"], key=f"upload_{what}")
if upload is not None and st.button(f"Import {what}", type="primary"):
    import_upload(store, project.name, what, upload.name, upload.getvalue())
foreign_import(store, project.name)

st.subheader(f"Items of {project.name}")
items_browser(store, project.name)

st.subheader(f"Export from {project.name}")
st.caption("Files are built when you click, from the data as it is then.")


def _export(what: str, fmt: str) -> bytes:
    return frame_bytes(FRAMES[what](store, project.name), fmt)


cols = st.columns(len(FRAMES))
for col, what in zip(cols, FRAMES, strict=True):
    with col:
        fmt = st.selectbox(f"{what} format", [".csv", ".jsonl", ".parquet"], key=f"fmt_{what}")
        st.download_button(
            f"Download {what}",
            partial(_export, what, fmt),  # deferred: no export work on every rerun
            file_name=f"{project.name}-{what}{fmt}",
            key=f"dl_{what}",
            on_click="ignore",
            width="stretch",
        )

with st.expander("Danger zone"):
    confirm = st.text_input("Type the project name to delete it and all its data")
    if st.button("Delete project", disabled=confirm != project.name):
        store.delete_project(project.name)
        st.session_state[PROJECT_KEY] = None
        st.query_params.clear()
        st.rerun()
