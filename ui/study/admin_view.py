"""The Study tab of Users & settings: the study settings (a form, and JSON as the advanced
view), its links, gold items."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from annotation_store import ProjectInfo, Store, StoreError
from crowd import workers as crowd
from interop import TOOL_NAMES
from studies import gold
from studies.assignments import annotation_settings
from studies.flow_settings import example_study, get_study, set_study, study_of
from ui.auth import auth_mode
from ui.study.entry import SINGLE_MODE_REFUSAL
from ui.study.settings_form import clear_form_state, study_form


def _base_url() -> str:
    url = st.context.url
    return url.split("?")[0].rsplit("/", 1)[0] if isinstance(url, str) and url else "http://HOST"


def study_tab(store: Store, project: ProjectInfo) -> None:
    """Edit the study settings (form or JSON), show the study links, mark gold items."""
    st.caption(
        "The study flow: consent, guideline, training with a qualification threshold, "
        "annotation with gold items, survey, completion code. See docs/annotating.md."
    )
    current = get_study(store, project.name)
    if st.session_state.pop("study_saved", False):
        # show what was stored (with its token), not the text as typed, in both views
        st.session_state["study_json"] = json.dumps(current, indent=2, ensure_ascii=False)
        clear_form_state()
        st.toast("Study saved.", icon=":material/check_circle:")
    study_form(store, project, current)
    advanced = st.expander("Advanced: the study settings as JSON")
    with advanced, st.form("study_settings"):
        text = st.text_area(
            "Study settings (JSON; an empty study starts from an example)",
            json.dumps(current or example_study(store, project.name), indent=2, ensure_ascii=False),
            height=360,
            key="study_json",
        )
        if st.form_submit_button("Save study", type="primary"):
            try:
                raw = json.loads(text)
                if not isinstance(raw, dict):
                    raise StoreError("the study settings must be a JSON object")
                set_study(store, project.name, raw)
            except json.JSONDecodeError as exc:
                st.error(f"Not JSON: {exc.msg} (line {exc.lineno}).")
            except StoreError as exc:
                st.error(str(exc))
            else:
                st.session_state["study_saved"] = True
                st.rerun()
    study = study_of(store.project(project.name).settings)
    if study.crowd and auth_mode() == "single":
        st.warning(SINGLE_MODE_REFUSAL, icon=":material/warning:")
    if study.crowd and annotation_settings(store.project(project.name).settings).quota is None:
        st.info(
            "No quota is set (Annotation settings): one submitted item earns the completion "
            "code. Set the number of items each worker must submit.",
            icon=":material/info:",
        )
    if study.token:
        st.markdown("**Study links** (keep them private: the token lets people in)")
        for platform in crowd.LINK_PARAMS:
            st.caption(f"For {TOOL_NAMES.get(platform, platform)}:")
            st.code(crowd.study_link(_base_url(), project.name, study.token, platform), None)
    _gold_editor(store, project)


def answers_text(answers: Any) -> str:
    """Gold answers as ``field: value`` pairs (lists joined with commas), not JSON."""
    if not isinstance(answers, dict):
        return _value_text(answers)
    return "; ".join(f"{k}: {_value_text(v)}" for k, v in answers.items())


def _value_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(map(_value_text, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _gold_editor(store: Store, project: ProjectInfo) -> None:
    golds = gold.gold_items(store, project.name)
    st.markdown(f"**Gold items** ({len(golds)})")
    with st.form("gold_item"):
        item = st.selectbox("Item", list(store.item_ids(project.name)), key="gold_item_id")
        answers = st.text_input(
            'Gold answers (JSON: {"field": value}, or one value)', key="gold_answers"
        )
        why = st.text_input("Explanation (optional)", key="gold_explanation")
        if st.form_submit_button("Mark gold"):
            value = gold.answers_from_text(answers)
            try:
                gold.set_gold(store, project.name, item, value, why)
            except StoreError as exc:
                st.error(str(exc))
            else:
                st.rerun()
    if golds:
        st.dataframe(
            [{"item": i, "gold answers": answers_text(g["answers"]), "explanation": g["explanation"]}
             for i, g in golds.items()],
            hide_index=True,
            width="stretch",
        )  # fmt: skip
        drop = st.selectbox("Make ordinary again", list(golds), key="gold_drop", index=None)
        if drop and st.button("Remove gold", key="gold_remove"):
            gold.clear_gold(store, project.name, drop)
            st.rerun()
