"""The Annotate page's plain form: every kind's item, drawn from its declared fields.

Where the annotation client runs (``ui.annotation.fast_lane_view``) it draws the item;
this form is the fallback for when it cannot (``streamlit run app.py`` without the
client's routes, or the client not loaded), and the page beneath the client's panel.
There are no per-kind views: the item's fields are shown as the kind declares them (a
declared kind by display role; a built-in kind as text panels, an object as ``key:
value`` lines, never a Python repr), and each question by the control its question type
names in the registry (``ui.annotation.controls``). A kind's live scores (intent match:
recall, precision, F1) follow the questions.
"""

from __future__ import annotations

import streamlit as st

from kinds import FieldType, HumanField
from kinds.values import is_asked
from ui.annotation import GENERIC, register_view
from ui.annotation.context import ItemContext, Target, save_target
from ui.annotation.controls import control_for
from ui.annotation.declared_fields import compared_outputs, declared_fields
from ui.annotation.declared_questions import choice
from ui.annotation.fast_lane import field_text
from ui.annotation.widgets import MISSING_MARK, context_table, live_scores, text_panel

HIDDEN = {"text", "generator"}


def _number(ctx: ItemContext, target: Target) -> None:
    spec = target.field
    key = f"num::{ctx.token}::{spec.name}"
    if key not in st.session_state:
        st.session_state[key] = ctx.value(target)

    def on_change() -> None:
        if st.session_state[key] is not None:
            save_target(ctx, target, st.session_state[key])

    if ctx.is_missing(target):
        st.markdown(MISSING_MARK.strip())
    st.number_input(
        spec.description or spec.name,
        min_value=spec.minimum,
        max_value=spec.maximum,
        step=0.05,
        key=key,
        on_change=on_change,
        placeholder="type a number, then Tab",
    )


def _plain_fields(ctx: ItemContext) -> None:
    """A built-in kind's fields: ``text`` first (with its generator, where shown), each
    other declared field as a titled panel in declared order (fact lists and compared
    outputs are drawn by their questions), then the item's other columns as a table."""
    f = ctx.item.fields
    if "text" in f:
        text_panel("Text", str(f["text"]), caption=f.get("generator"))
    facts = {spec.facts_field for spec in ctx.fields.values() if spec.facts_field}
    skip = HIDDEN | facts | compared_outputs(ctx)
    shown = {"text", "generator"}
    for spec in ctx.project.task_kind.item_fields:
        if spec.hidden or spec.name in skip or spec.name not in f:
            continue
        shown.add(spec.name)
        body = field_text(f[spec.name])
        if body is not None:
            text_panel(spec.name.replace("_", " ").capitalize(), body)
    rest = {k: v for k, v in f.items() if k not in shown | facts and not isinstance(v, list)}
    context_table(rest)


def _question(ctx: ItemContext, spec: HumanField, declared: bool) -> None:
    """One question by its question type's control (a built-in kind's number question
    keeps its number box)."""
    if not declared and spec.type is FieldType.INTERVAL:
        _number(ctx, Target(spec))
        return
    (control_for(spec.question_type.control or "") or choice)(ctx, Target(spec))


@register_view(GENERIC)
def render(ctx: ItemContext) -> None:
    """Draw an item of any kind: its fields, every question asked so far, live scores."""
    declared = any(spec.role for spec in ctx.project.task_kind.item_fields)
    if declared:
        declared_fields(ctx)
    else:
        _plain_fields(ctx)
    # in keyboard order (``build_targets``): fact lists first, then the other questions
    ordered = sorted(ctx.fields.values(), key=lambda s: s.type is not FieldType.FACT_LABELS)
    with st.container(border=True):
        for spec in ordered:
            if is_asked(spec, ctx.labels):
                _question(ctx, spec, declared)
        if ctx.project.task_kind.derived_scores:
            live_scores(ctx)
