"""Task kinds: declare a study in TOML, check it in place, preview it, save a version."""

from __future__ import annotations

import streamlit as st

from annotation_store import StoreError
from kinds.declared import DeclarationError, parse_toml
from ui.context import current_project, current_user, get_store, has_role
from ui.kind_preview import preview
from workbench_api.kinds import save_kind

store = get_store()
st.title("Task kinds", anchor=False)
if not has_role("admin"):
    st.error("Task kinds are declared by admins.", icon=":material/lock:")
    st.stop()
st.caption(
    "A declared kind is a TOML file: item fields with their display role, and questions. "
    "Every save is a new version; a project keeps the version it was made with "
    "(`decl:NAME@N`). The README's *declared task kinds* section lists every key."
)

NEW = "+ New kind"
records = {r.name: r for r in store.kind_records()}
if "kd_next_pick" in st.session_state:  # just saved: open that kind's new version
    st.session_state["kd_pick"] = st.session_state.pop("kd_next_pick")
    st.session_state["kd_loaded"] = None
choice = st.selectbox("Kind", [NEW, *records], key="kd_pick")
if st.session_state.get("kd_loaded") != choice:  # a new pick loads its latest TOML
    st.session_state["kd_loaded"] = choice
    st.session_state["kd_toml"] = records[choice].source if choice in records else ""
name = (
    st.text_input("Name", key="kd_name", placeholder="letters, digits, _ or -")
    if choice == NEW
    else choice
)
text = st.text_area("Definition (TOML)", key="kd_toml", height=360)

checked = None
if text.strip():
    try:
        checked = parse_toml(text)
    except DeclarationError as exc:
        st.error(f"Not valid: {exc}", icon=":material/error:")
if checked is not None:
    st.success(
        f"Valid: {len(checked.item_fields)} fields, {len(checked.questions)} questions.",
        icon=":material/check:",
    )
    project = current_project()
    with st.expander("Preview on an item", expanded=True):
        items = store.items_page(project.name, 0, 1) if project else []
        fields = dict(items[0].fields) if items else {}
        if not items:
            st.caption("Pick a project with items in the sidebar to preview on a real item.")
        preview(checked, fields)
    if st.button("Save as new version", type="primary", key="kd_save"):
        try:
            record = save_kind(store, name, text, created_by=current_user().name)
        except (DeclarationError, StoreError) as exc:
            st.error(f"Not saved: {exc}", icon=":material/error:")
        else:
            st.session_state["kd_flash"] = f"Saved {record.ref}."
            st.session_state["kd_next_pick"] = record.name
            st.rerun()
flash = st.session_state.pop("kd_flash", None)
if flash:
    st.success(flash)
