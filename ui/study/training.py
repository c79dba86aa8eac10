"""Training items: one at a time, answered in a form, then right / wrong and the gold
explanation before the next one.

Where the server serves the annotation client's routes, the client draws the practice
items over this page, as it draws items to annotate (``ui.annotation.practice`` checks
the answers); the form here is the fallback without it."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreement.statistics import DASH
from annotation_store import AnnotatorInfo, ProjectInfo, Store
from crowd import workers as crowd
from kinds import FieldType, HumanField
from studies.flow_settings import StudySettings, TrainingItem
from ui.annotation import practice
from ui.annotation.fast_lane_view import practice_client
from ui.annotation.page import label_text
from ui.safe_markdown import no_images

FEEDBACK_KEY = "study_training_feedback"


FACT_CHOICES = {"C": "implied (C)", "M": "missing (M)"}


def _choice_label(field: HumanField, value: Any) -> str:
    if field.type is FieldType.FACT_LABELS:
        return ", ".join(str(v) for v in value)
    if field.type is FieldType.BINARY:
        return "yes" if value == 1 else "no"
    described = field.level_descriptions.get(value)
    return f"{value}: {no_images(described)}" if described else str(value)


def _fact_questions(field: HumanField, key: str, item: TrainingItem) -> list[str] | None:
    """One C / M choice per fact of the item's fact list; None until each is answered."""
    st.markdown(field.description or field.name)
    facts = item.fields.get(field.facts_field or "") or []
    given = [
        st.radio(
            str(fact),
            tuple(FACT_CHOICES),
            index=None,
            key=f"{key}::{n}",
            format_func=FACT_CHOICES.get,
            horizontal=True,
        )
        for n, fact in enumerate(facts)
    ]
    return None if any(v is None for v in given) else list(given)


def _question(field: HumanField, key: str, item: TrainingItem) -> Any:
    label = field.description or field.name
    if field.type is FieldType.FACT_LABELS:
        return _fact_questions(field, key, item)
    if field.type is FieldType.INTERVAL:
        return st.number_input(
            label, min_value=field.minimum, max_value=field.maximum, value=None, key=key
        )
    values = (1, 0) if field.type is FieldType.BINARY else field.values
    return st.radio(
        label,
        values,
        index=None,
        key=key,
        format_func=lambda v: _choice_label(field, v),
        horizontal=len(values) <= 7,
    )


def field_markdown(value: Any) -> str:
    """An item field as Markdown: an object as ``key: value`` lines, a list as bullets."""
    if isinstance(value, dict):
        return "\n".join(f"- {k}: `{label_text(v)}`" for k, v in value.items()) or DASH
    if isinstance(value, list | tuple):
        return "\n".join(f"- {_turn(v)}" for v in value) or DASH
    return _plain(value)


def _turn(value: Any) -> str:
    """One entry of a list: a chat turn as its speaker and words (never a Python repr)."""
    if isinstance(value, dict) and "content" in value:
        return f"**{_plain(value.get('role', '?'))}**: {_plain(value['content'])}"
    return _plain(value)


def _plain(value: Any) -> str:
    """Text shown as is: a dollar sign must not open a formula."""
    return label_text(value).replace("$", "\\$")


def _show_fields(item: TrainingItem) -> None:
    """The item's fields, titled as the annotation client titles them (never a raw
    field name), each as readable Markdown."""
    for name, value in item.fields.items():
        st.markdown(f"**{name.replace('_', ' ').capitalize()}**")
        st.markdown(no_images(field_markdown(value)))


def _feedback(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item: TrainingItem, correct: bool
) -> None:
    _show_fields(item)
    # the same sentence the client shows (``ui.annotation.practice.verdict``)
    said = practice.verdict(correct, practice.expected_answer(store, project, user, item))
    if correct:
        st.success(said, icon=":material/check_circle:")
    else:
        st.error(said, icon=":material/cancel:")
    if item.explanation:
        st.info(item.explanation, icon=":material/lightbulb:")
    if st.button("Continue", type="primary", key="training_continue"):
        st.session_state.pop(FEEDBACK_KEY, None)
        st.rerun()


def render_training(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, study: StudySettings
) -> None:
    """Draw the current training step; after the last one, judge the qualification."""
    part = crowd.participant(store, project.name, user.name)
    assert part is not None
    fields = {f.name: f for f in project.task_kind.human_fields(project.settings)}
    answered = {a["id"]: a["correct"] for a in part.training}
    items = list(study.training)
    st.subheader("Practice")
    with st.expander("Guideline", icon=":material/menu_book:"):
        st.markdown(no_images(project.guideline or "_No guideline yet._"))
    pending = st.session_state.get(FEEDBACK_KEY)
    if pending in answered:
        number = [t.id for t in items].index(pending) + 1
        # plain text, not st.caption: the caption's faded grey is below 4.5:1 on white
        st.markdown(f"Practice item {number} of {len(items)}")
        _feedback(
            store, project, user, next(t for t in items if t.id == pending), answered[pending]
        )
        return
    todo = [t for t in items if t.id not in answered]
    if not todo:
        crowd.finish_training(store, project.name, user.name)
        st.rerun()
    item = todo[0]
    # the annotation client draws the item where the server serves it; this form stays
    # beneath it as the fallback (``streamlit run app.py``, or the client not loaded)
    practice_client(store, project, user, study, item.id)
    st.markdown(
        f"Practice item {len(answered) + 1} of {len(items)}: after each answer you see "
        "whether it was right, and why."
    )
    _show_fields(item)
    with st.form(f"training_{item.id}"):
        given = {
            name: _question(fields[name], f"training::{item.id}::{name}", item)
            for name in item.answers
            if name in fields
        }
        sent = st.form_submit_button("Check my answer", type="primary")
    if sent:
        if any(v is None for v in given.values()):
            st.warning("Answer every question first.")
            return
        crowd.record_training_answer(store, project.name, user.name, item.id, given)
        st.session_state[FEEDBACK_KEY] = item.id
        st.rerun()
