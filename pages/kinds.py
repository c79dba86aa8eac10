"""Task kinds: declare a study by form or in TOML, check it in place, preview it live on
an item, save a version."""

from __future__ import annotations

import streamlit as st

from annotation_store import StoreError
from kinds.declared import DeclarationError, parse_toml
from ui.context import current_project, current_user, get_store, has_role
from ui.kind_form import render_form
from ui.kind_form_edits import TOML_KEY, reset_form
from ui.kind_preview import live_preview, pick_item
from workbench_api.kinds import save_kind

store = get_store()
st.title("Task kinds", anchor=False)
if not has_role("admin"):
    st.error("Task kinds are declared by admins.", icon=":material/lock:")
    st.stop()
st.caption(
    "A declared kind lists item fields with their display role, and questions. Build it "
    "with the form or write the TOML: both show the same definition. Every save is a new "
    "version; a project keeps the version it was made with (`decl:NAME@N`). The README's "
    "*declared task kinds* section lists every key."
)

NEW = "+ New kind"
records = {r.name: r for r in store.kind_records()}
if "kd_next_pick" in st.session_state:  # just saved: open that kind's new version
    st.session_state["kd_pick"] = st.session_state.pop("kd_next_pick")
    st.session_state["kd_loaded"] = None
choice = st.selectbox("Kind", [NEW, *records], key="kd_pick")
if st.session_state.get("kd_loaded") != choice:  # a new pick loads its latest TOML
    st.session_state["kd_loaded"] = choice
    st.session_state[TOML_KEY] = records[choice].source if choice in records else ""
    reset_form()
name = (
    st.text_input("Name", key="kd_name", placeholder="letters, digits, _ or -")
    if choice == NEW
    else choice
)

text = st.session_state.get(TOML_KEY) or ""
checked, error = None, None
if text.strip():
    try:
        checked = parse_toml(text)
    except DeclarationError as exc:
        error = exc
edit, view = st.columns([11, 10], gap="medium")
with edit:
    form_tab, toml_tab = st.tabs(["Form", "TOML"])
    with form_tab:
        render_form(error)
    with toml_tab:
        st.text_area("Definition (TOML)", key=TOML_KEY, height=520, on_change=reset_form)
# The preview follows the page as the form scrolls: its column stretches to the form's
# height and the preview sticks below the top bar.
st.html(
    "<style>[data-testid='stColumn']:has(.st-key-kd_view){align-self:stretch}"
    "[data-testid='stColumn']:has(.st-key-kd_view)>div{height:100%}"
    "[data-testid='stLayoutWrapper']:has(>.st-key-kd_view){position:sticky;top:3.75rem;"
    "max-height:calc(100vh - 4.5rem);overflow-y:auto}</style>"
)
with view, st.container(key="kd_view"):
    if error is not None:
        st.error(f"Not valid: {error}", icon=":material/error:")
    elif checked is None:
        st.info("Add a field and a question (or paste TOML) to see the preview here.")
    if checked is not None:
        st.success(
            f"Valid: {len(checked.item_fields)} fields, {len(checked.questions)} questions.",
            icon=":material/check:",
        )
        st.markdown("**Live preview**: the Annotate view")
        project = current_project()
        item_key, fields = pick_item(store, checked, project.name if project else None)
        live_preview(checked, name, item_key, fields, current_user())
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
