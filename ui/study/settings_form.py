"""The Study tab's form: consent, training, gold checks, quality checks, completion codes
and links, skips, pay; a refused value is explained under its own input."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import streamlit as st

from annotation_store import ProjectInfo, Store, StoreError
from interop import TOOL_NAMES
from studies.flow_settings import DEFAULTS, PLATFORMS, SURVEY_TYPES, set_study
from studies.settings_form import (
    ANSWER,
    SHOWN,
    survey_from_rows,
    survey_rows,
    training_from_rows,
    training_rows,
    without_defaults,
)

PREFIX = "studyf_"
#: Where a refusal is shown: the first setting the message names (training and survey
#: messages name their table).
_NAMED = re.compile(r"'(\w+)'")


def clear_form_state() -> None:
    """Forget what the form's inputs hold, so they show the stored settings again."""
    for key in [k for k in st.session_state if str(k).startswith(PREFIX)]:
        del st.session_state[key]


def error_key(message: str) -> str:
    """The setting a refusal is about (``general`` when it names none)."""
    if message.startswith("training item") or "'training'" in message:
        return "training"
    if message.startswith("survey question") or "'survey'" in message:
        return "survey"
    for name in _NAMED.findall(message):
        if name in DEFAULTS:
            return name
    return "general"


def _columns(store: Store, project: ProjectInfo, training: list[dict[str, Any]]):
    kind = store.project(project.name).task_kind
    shown = [f.name for f in kind.item_fields if not f.hidden]
    shown += sorted({n for t in training for n in (t.get("fields") or {})} - set(shown))
    answered = [f.name for f in kind.human_fields(store.project(project.name).settings)]
    text_fields = {f.name for f in kind.item_fields if f.kind == "text"}
    return shown, answered, text_fields


def study_form(store: Store, project: ProjectInfo, current: dict[str, Any]) -> None:
    """Draw the form; on Save, store the settings or say under the input why not."""
    v = {**DEFAULTS, **current}
    training = list(v.get("training") or [])
    shown, answered, text_fields = _columns(store, project, training)
    slots: dict[str, Any] = {}
    with st.form("study_form"):
        st.markdown("**Who takes part**")
        crowd = st.checkbox(
            "Open to study links (crowd workers from "
            + " or ".join(TOOL_NAMES.get(p, p) for p in PLATFORMS)
            + ")",
            bool(v["crowd"]),
            key=PREFIX + "crowd",
        )
        slots["crowd"] = st.empty()
        consent = st.text_area(
            "Consent text (empty: no consent step)", v["consent"] or "", key=PREFIX + "consent"
        )
        slots["consent"] = st.empty()

        st.markdown("**Training** (practice items with the right answers and why)")
        train_table = st.data_editor(
            pd.DataFrame(
                training_rows(training, shown, answered),
                columns=["id", *(SHOWN + f for f in shown), *(ANSWER + f for f in answered)]
                + ["explanation"],
                dtype=str,
            ),
            num_rows="dynamic",
            hide_index=True,
            width="stretch",
            key=PREFIX + "training",
        )
        qualification = st.number_input(
            "Share of training answers needed to go on (0 to 1)",
            0.0, 1.0, float(v["qualification"]), 0.05, key=PREFIX + "qualification",
        )  # fmt: skip
        slots["training"] = st.empty()
        slots["qualification"] = st.empty()

        st.markdown("**Gold checks** (items with known answers mixed into the work)")
        g1, g2, g3 = st.columns(3)
        gold_rate = g1.number_input(
            "Share of gold items", 0.0, 1.0, float(v["gold_rate"]), 0.05, key=PREFIX + "gold_rate"
        )
        gold_threshold = g2.number_input(
            "Gold accuracy needed", 0.0, 1.0, float(v["gold_threshold"]), 0.05,
            key=PREFIX + "gold_threshold",
        )  # fmt: skip
        gold_min = g3.number_input(
            "Gold answers before judging", 1, None, int(v["gold_min"]), key=PREFIX + "gold_min"
        )
        gold_stop = st.checkbox(
            "Stop workers who fall below the gold accuracy", bool(v["gold_stop"]),
            key=PREFIX + "gold_stop",
        )  # fmt: skip
        for key in ("gold_rate", "gold_threshold", "gold_min", "gold_stop"):
            slots[key] = st.empty()

        st.markdown("**Other checks and limits**")
        c1, c2, c3 = st.columns(3)
        speeder_share = c1.number_input(
            "Flag a worker when this share of items is too fast", 0.0, 1.0,
            float(v["speeder_share"]), 0.05, key=PREFIX + "speeder_share",
        )  # fmt: skip
        max_skips = c2.number_input(
            "Skips allowed (empty: any, 0: no Skip button)", 0, None, v["max_skips"],
            key=PREFIX + "max_skips",
        )  # fmt: skip
        idle_seconds = c3.number_input(
            "Idle seconds before a pause stops counting", 5, 3600, int(v["idle_seconds"]),
            key=PREFIX + "idle_seconds",
        )  # fmt: skip
        for key in ("speeder_share", "max_skips", "idle_seconds"):
            slots[key] = st.empty()

        st.markdown("**Survey** (questions after the work)")
        survey_table = st.data_editor(
            pd.DataFrame(survey_rows(v.get("survey") or []), columns=list(survey_rows([{}])[0])),
            num_rows="dynamic",
            hide_index=True,
            width="stretch",
            column_config={
                "type": st.column_config.SelectboxColumn("type", options=list(SURVEY_TYPES)),
                "low": st.column_config.NumberColumn("low (likert)", step=1),
                "high": st.column_config.NumberColumn("high (likert)", step=1),
            },
            key=PREFIX + "survey",
        )
        slots["survey"] = st.empty()

        st.markdown("**Completion** (codes and the page workers return to)")
        e1, e2 = st.columns(2)
        texts = {}
        for col, key, label in (
            (e1, "completion_code", "Completion code"),
            (e2, "completion_url", "Completion URL (https://…)"),
            (e1, "screenout_code", "Screen-out code (failed training or gold checks)"),
            (e2, "full_code", "Study-full code"),
        ):
            texts[key] = col.text_input(label, v[key] or "", key=PREFIX + key)
            slots[key] = col.empty()
        mturk_sandbox = st.checkbox(
            "MTurk sandbox: finished HITs go to the sandbox (test, no pay), not production",
            bool(v["mturk_sandbox"]), key=PREFIX + "mturk_sandbox",
        )  # fmt: skip
        slots["mturk_sandbox"] = st.empty()
        hourly_rate = st.number_input(
            "Hourly rate (for the pay shown on Progress)", 0.0, None, float(v["hourly_rate"]),
            0.5, key=PREFIX + "hourly_rate",
        )  # fmt: skip
        slots["hourly_rate"] = st.empty()
        slots["general"] = st.empty()
        if not st.form_submit_button("Save study", type="primary"):
            return
    values = {
        "crowd": crowd,
        "consent": consent,
        "training": training_from_rows(train_table.to_dict("records"), text_fields),
        "qualification": qualification,
        "gold_rate": gold_rate,
        "gold_threshold": gold_threshold,
        "gold_min": int(gold_min),
        "gold_stop": gold_stop,
        "speeder_share": speeder_share,
        "survey": survey_from_rows(survey_table.to_dict("records")),
        **texts,
        "max_skips": None if max_skips is None else int(max_skips),
        "hourly_rate": hourly_rate,
        "idle_seconds": int(idle_seconds),
        "mturk_sandbox": mturk_sandbox,
    }
    try:
        set_study(store, project.name, without_defaults(values, current.get("token", "")))
    except StoreError as exc:
        slots[error_key(str(exc))].error(str(exc), icon=":material/error:")
    else:
        st.session_state["study_saved"] = True
        st.rerun()
