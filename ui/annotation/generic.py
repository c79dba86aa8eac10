"""Generic kinds (and any kind without its own view): text, context, fitting controls."""

from __future__ import annotations

import streamlit as st

from kinds import FieldType
from kinds.values import is_asked
from ui.annotation import GENERIC, register_view
from ui.annotation.context import ItemContext, Target, save_target
from ui.annotation.controls import control_for
from ui.annotation.declared_fields import declared_fields
from ui.annotation.declared_questions import choice
from ui.annotation.widgets import MISSING_MARK, context_table, fact_list, question, text_panel

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


def _declared(ctx: ItemContext) -> None:
    """A declared kind: fields by role, then every question asked so far."""
    declared_fields(ctx)
    with st.container(border=True):
        for spec in ctx.fields.values():
            if not is_asked(spec, ctx.labels):
                continue
            name = spec.question_type.control or ""
            (control_for(name) or choice)(ctx, Target(spec))


@register_view(GENERIC)
def render(ctx: ItemContext) -> None:
    """Draw an item of any kind from its declared fields."""
    if any(spec.role for spec in ctx.project.task_kind.item_fields):
        _declared(ctx)
        return
    f = ctx.item.fields
    text_fields = [
        spec.name
        for spec in ctx.project.task_kind.item_fields
        if spec.kind == "text" and spec.name not in HIDDEN and spec.name in f
    ]
    if "text" in f:
        text_panel("Text", str(f["text"]), caption=f.get("generator"))
    for name in text_fields:
        text_panel(name.replace("_", " ").capitalize(), str(f[name]))
    shown = {"text", "generator", *text_fields}
    context_table({k: v for k, v in f.items() if k not in shown and not isinstance(v, list)})
    with st.container(border=True):
        for spec in ctx.fields.values():
            if spec.type is FieldType.FACT_LABELS:
                fact_list(ctx, spec.name, spec.description or spec.name, "1 = C, 0 = M")
            elif spec.type is FieldType.INTERVAL:
                _number(ctx, Target(spec))
            else:
                question(ctx, Target(spec), horizontal=len(spec.values) <= 6)
