"""Judges: write a custom LLM judge, preview its prompt on an item, try it, save a version."""

from __future__ import annotations

import asyncio

import pandas as pd
import streamlit as st

from evaluators.base import EvalItem
from evaluators.judges.evaluator import JudgeEvaluator
from evaluators.judges.spec import SWAPPABLE, JudgeError, parse_spec
from jobs.runner import build_context
from ui.context import current_user, get_store, has_role, require_project
from ui.judge_editor import (
    DEFAULTS,
    OUTPUT_TITLES,
    OUTPUT_TYPES,
    definition_from_state,
    load_into_state,
)
from workbench_api.judges import example_candidates, preview, save_judge, with_examples

store = get_store()
project = require_project()
user = current_user()
kind = project.task_kind

st.title("Judges", anchor=False)
if not has_role("admin", "reviewer"):
    st.error("Judges are written by reviewers and admins.", icon=":material/lock:")
    st.stop()
st.caption(
    f"{project.name} · {kind.title}. A judge is a prompt template over the item's fields, "
    "the answer it must give and how to sample it. Every save is a new version; results "
    "are signed `judge:NAME` with the version, and run from the Evaluate page."
)

NEW = "+ New judge"
judges = {j.name: j for j in store.judges(project.name)}


def _pick() -> None:
    """Load the chosen judge's latest version (or a blank form) into the widgets."""
    choice = st.session_state["jd_pick"]
    record = judges.get(choice)
    load_into_state(
        st.session_state, "" if record is None else choice, record and record.definition
    )


saved = st.session_state.pop("jd_saved", None)  # just saved: open that judge's new version
if saved is not None:
    st.session_state["jd_pick"] = saved
    _pick()
elif "jd_pick" not in st.session_state or any(k not in st.session_state for k in DEFAULTS):
    st.session_state.setdefault("jd_pick", NEW)
    _pick()
flash = st.session_state.pop("jd_flash", None)
if flash:
    st.success(flash, icon=":material/check_circle:")
    st.toast(flash, icon=":material/check_circle:")  # the page may be scrolled past the top

st.selectbox("Judge", [NEW, *judges], key="jd_pick", on_change=_pick)
existing = judges.get(st.session_state["jd_pick"])

left, right = st.columns([3, 2], gap="large")
with left:
    st.text_input("Name", key="jd_name", disabled=existing is not None, max_chars=64)
    st.text_input("Description", key="jd_description")
    scoreable = [f.name for f in kind.human_fields(project.settings)] + [
        d.name for d in kind.derived_scores
    ]
    st.multiselect("Scores the field(s)", scoreable, key="jd_fields")
    st.text_area("System message (optional)", key="jd_system", height=80)
    st.text_area("Prompt template (Jinja2)", key="jd_template", height=220)
    c1, c2 = st.columns(2)
    c1.selectbox("Output", OUTPUT_TYPES, key="jd_type", format_func=OUTPUT_TITLES.get)
    c2.checkbox("Ask for an explanation first", key="jd_expl")
    out_type = st.session_state["jd_type"]
    if out_type == "label":
        st.text_input("Labels (comma-separated)", key="jd_labels")
    elif out_type in ("integer", "decimal"):
        c1, c2 = st.columns(2)
        c1.number_input("Minimum", key="jd_min")
        c2.number_input("Maximum", key="jd_max")
    elif out_type == "fact_labels":
        lists = [f.name for f in kind.item_fields if f.kind == "list"]
        st.selectbox("Facts from the item field", lists, key="jd_facts")
    elif out_type == "binary":
        st.checkbox("Ask for the probability of yes", key="jd_prob")
    with st.expander("Model and sampling", icon=":material/tune:"):
        c1, c2 = st.columns(2)
        c1.text_input("Model (blank: the configured one)", key="jd_model")
        c2.number_input("Temperature", 0.0, 2.0, step=0.1, key="jd_temp")
        c1.number_input("Samples per item", 1, 20, key="jd_samples")
        c2.selectbox("Combine samples by", ["majority", "mean"], key="jd_agg")
        c1.number_input("Max tokens", 16, 8000, key="jd_max_tokens")
        if project.kind in SWAPPABLE:
            c2.checkbox(
                "Swap the two texts (position probe)",
                key="jd_swap",
                help="Exchange " + ", ".join(f"{a} and {b}" for a, b in SWAPPABLE[project.kind]),
            )

with right:
    st.markdown("**Item fields** (use them as `{{ name }}`)")
    st.markdown(
        "\n".join(
            f"- `{f.name}` ({f.kind}{'' if f.required else ', optional'}): {f.description}"
            for f in kind.item_fields
        )
    )
    items = store.items(project.name)
    ids = [i.item_id for i in items]
    item_id = st.selectbox("Preview on item", ids, key="jd_item") if ids else None

definition = definition_from_state(st.session_state, project.kind, project.name)
spec = None
with right:
    try:
        if st.session_state["jd_fields"]:
            example_spec = parse_spec({**definition, "few_shot": {}})
            candidates = example_candidates(store, project.name, example_spec)
            st.multiselect(
                "Worked examples (items with unanimous or adjudicated labels)",
                sorted(set(candidates) | set(st.session_state["jd_examples"])),
                key="jd_examples",
                help="Shown to the judge with the people's answer; left out of this "
                "version's agreement figures.",
            )
            definition = definition_from_state(st.session_state, project.kind, project.name)
            spec = parse_spec(definition)
        else:
            st.info(
                "Choose the field(s) this judge scores; the rendered prompt appears here.",
                icon=":material/info:",
            )
    except JudgeError as exc:
        st.error(str(exc), icon=":material/error:")
    if spec is not None and item_id is not None:
        item = next(i for i in items if i.item_id == item_id)
        try:
            messages = preview(with_examples(store, spec), item.fields)
        except JudgeError as exc:
            st.error(str(exc), icon=":material/error:")
        else:
            with st.container(border=True, key="jd_preview"):
                for m in messages:
                    st.caption(m["role"])
                    st.code(m["content"], language=None, wrap_lines=True)
        if st.button("Try on this item", key="jd_try", icon=":material/science:"):
            evaluator = JudgeEvaluator("draft", 0, with_examples(store, spec), build_context(store))
            reason = evaluator.unavailable_reason()
            if reason:
                st.error(reason)
            else:
                with st.spinner("Asking the judge"):
                    [res] = asyncio.run(
                        evaluator.evaluate([EvalItem(item.item_id, item.fields, item.generator)])
                    )
                if res.status == "failed":
                    st.error(f"Failed: {res.error}")
                else:
                    scored = ", ".join(f"{k} = {v:g}" for k, v in res.scores.items())
                    st.success(f"Answer: {res.details.get('answer')} · {scored}")
                    if res.reasoning:
                        st.caption(res.reasoning)

label = "Save as new version" if existing else "Create judge"
if st.button(label, type="primary", key="jd_save", disabled=spec is None, icon=":material/save:"):
    name = existing.name if existing else st.session_state["jd_name"].strip()
    try:
        record = save_judge(store, name, definition, new=existing is None, created_by=user.name)
    except (JudgeError, ValueError) as exc:
        st.error(str(exc), icon=":material/error:")
    else:
        st.session_state["jd_flash"] = (
            f"Saved {record.name} version {record.version} (prompt {record.prompt_hash})."
        )
        st.session_state["jd_saved"] = record.name
        st.rerun()

if existing:
    st.subheader("Versions", anchor=False)
    rows = [r.to_dict() for r in store.judge_versions(existing.name)]
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "version": r["version"],
                    "saved": r["created_at"],
                    "by": r["created_by"],
                    "prompt hash": r["prompt_hash"],
                    "examples": len(r["definition"].get("few_shot", {}).get("examples") or []),
                }
                for r in rows
            ]
        ),
        hide_index=True,
        key="jd_versions",
    )
