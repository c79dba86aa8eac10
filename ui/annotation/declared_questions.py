"""The built-in question types' controls, registered by the names the types declare
(``binary``, ``single``, ``likert``: a choice among the values; ``score``: a slider;
``fact_labels``: C / M per fact; ``multi_label``, ``text``, ``pairwise``, ``spans``).

Each saves the moment an answer is given, as every other control does. Keyboard: a
multi-label question's digits toggle its labels; a pairwise question takes A, B and T;
spans are chosen as a range of words (type to filter in the word lists) and a label.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from kinds.values import TIE
from ui.annotation.context import ItemContext, Target, save_target
from ui.annotation.controls import register_control
from ui.annotation.declared_fields import show_field
from ui.annotation.options import PAIR_KEYS, response_title, shown_order, words
from ui.annotation.widgets import MISSING_MARK, _plain, fact_list, question
from ui.safe_markdown import no_images


def save_and_stay(ctx: ItemContext, target: Target, value: Any) -> None:
    """Save (callback) and keep the keyboard on this question: a set of labels or spans
    takes several presses."""
    save_target(ctx, target, value)
    keys = [t.key for t in ctx.targets]
    if target.key in keys:
        st.session_state[ctx.focus_key] = keys.index(target.key)


def heading(ctx: ItemContext, target: Target) -> None:
    """The question's prompt (highlighted when focused), tick or mark, and help."""
    spec = target.field
    focused = ctx.is_focused(target)
    text = no_images(spec.description or spec.name)
    optional = "" if spec.required else " *(optional)*"
    tick = " ✓" if ctx.value(target) is not None else MISSING_MARK if ctx.is_missing(target) else ""
    st.markdown(
        (f":blue-background[**▸ {text}**]" if focused else f"**{text}**") + optional + tick,
        help=no_images(spec.help) if spec.help else None,
    )


def multi_label(ctx: ItemContext, target: Target) -> None:
    """Toggle buttons, one per label; digits 1-9 toggle them when focused."""
    spec = target.field
    current = list(ctx.value(target) or [])
    focused = ctx.is_focused(target)
    with st.container(horizontal=True, gap="small", wrap=True):
        for i, label in enumerate(spec.values):
            on = label in current
            new = [v for v in current if v != label] if on else [*current, label]
            widget_key = f"opt::{ctx.token}::{target.key}::{label}"
            ctx.bind_key(target, str(i + 1) if i < 9 else None, widget_key, multi=True)
            st.button(
                label,
                key=widget_key,
                type="primary" if on else "secondary",
                shortcut=str(i + 1) if focused and i < 9 else None,
                on_click=save_and_stay,
                args=(ctx, target, new),
            )
    if not current:
        st.button(
            "none of these",
            key=f"none::{ctx.token}::{target.key}",
            type="primary" if ctx.value(target) == [] else "tertiary",
            on_click=save_target,
            args=(ctx, target, []),
        )


def free_text(ctx: ItemContext, target: Target) -> None:
    """A text area saved when it loses focus; emptied, it clears the saved answer (the
    server decides whether it may)."""
    key = f"text::{ctx.token}::{target.key}"
    if key not in st.session_state:
        st.session_state[key] = ctx.value(target) or ""

    def on_change() -> None:
        if str(st.session_state[key]).strip():
            save_target(ctx, target, st.session_state[key])
        elif ctx.value(target) is not None:
            save_target(ctx, target, None)

    st.text_area(target.field.name, key=key, on_change=on_change, label_visibility="collapsed")


def pairwise(ctx: ItemContext, target: Target) -> None:
    """The outputs side by side as A, B, ...; buttons (keys A / B / T) save the choice
    with the shown order; strength buttons refine a saved choice."""
    spec = target.field
    order = shown_order(ctx, spec.outputs)
    saved = ctx.value(target) or {}
    focused = ctx.is_focused(target)
    kind_fields = {f.name: f for f in ctx.project.task_kind.item_fields}
    cols = st.columns(len(order))
    for pos, (col, name) in enumerate(zip(cols, order, strict=True)):
        with col:  # titled by position: a field or system name would undo the shuffle
            show_field(kind_fields[name], ctx.item.fields.get(name, ""), response_title(pos))
    choices = [(f"{chr(65 + p)} is better", name, PAIR_KEYS[p]) for p, name in enumerate(order)]
    if spec.allow_tie:
        choices.append(("Tie", TIE, "t"))
    with st.container(horizontal=True, gap="small", wrap=True):
        for label, choice, key in choices:
            widget_key = f"opt::{ctx.token}::{target.key}::{choice}"
            ctx.bind_key(target, key, widget_key)
            st.button(
                label,
                key=widget_key,
                type="primary" if saved.get("choice") == choice else "secondary",
                shortcut=key if focused and key else None,
                on_click=save_target,
                args=(ctx, target, {"choice": choice, "shown": order}),
            )
    if spec.strengths and saved.get("choice") not in (None, TIE):
        with st.container(horizontal=True, gap="small", wrap=True):
            for level in spec.strengths:
                st.button(
                    level,
                    key=f"strength::{ctx.token}::{target.key}::{level}",
                    type="primary" if saved.get("strength") == level else "tertiary",
                    on_click=save_target,
                    args=(ctx, target, {**saved, "strength": level}),
                )


def spans(ctx: ItemContext, target: Target) -> None:
    """Saved spans (each removable) and a form to add one: first word, last word, label."""
    spec = target.field
    text = str(ctx.item.fields.get(spec.source_field or "", ""))
    saved: list[dict[str, Any]] = list(ctx.value(target) or [])
    toks = words(text)
    for k, s in enumerate(saved):
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        c1.markdown(f"`{s['label']}` · {_plain(text[s['start'] : s['end']])}")
        rest = saved[:k] + saved[k + 1 :]
        c2.button(
            "remove",
            key=f"spandel::{ctx.token}::{target.key}::{k}",
            type="tertiary",
            on_click=save_and_stay,
            args=(ctx, target, rest),
        )
    if not toks:
        st.caption("No text to mark.")
        return
    names = [f"{i + 1}: {w}" for i, (_, _, w) in enumerate(toks)]
    base = f"span::{ctx.token}::{target.key}"
    c1, c2, c3 = st.columns(3)
    first = c1.selectbox(
        "from word", range(len(toks)), format_func=names.__getitem__, key=f"{base}::from"
    )
    last = c2.selectbox(
        "to word", range(len(toks)), format_func=names.__getitem__, key=f"{base}::to"
    )
    label = c3.selectbox("label", spec.values, key=f"{base}::label")
    lo, hi = min(first, last), max(first, last)
    new = {"start": toks[lo][0], "end": toks[hi][1], "label": label}
    with st.container(horizontal=True, gap="small"):
        st.button(
            "Add span",
            key=f"{base}::add",
            on_click=save_and_stay,
            args=(ctx, target, [*saved, new]),
        )
        if not saved:
            st.button(
                "no spans",
                key=f"{base}::none",
                type="primary" if ctx.value(target) == [] else "tertiary",
                on_click=save_target,
                args=(ctx, target, []),
            )


def choice(ctx: ItemContext, target: Target) -> None:
    """One of the question's values, as buttons (a row when there are few)."""
    question(ctx, target, horizontal=len(target.field.values) <= 6)
    if target.field.help:
        st.caption(no_images(target.field.help))


def score_slider(ctx: ItemContext, target: Target) -> None:
    """A declared score question: a slider over its range, saved when moved."""
    spec = target.field
    key = f"slider::{ctx.token}::{spec.name}"
    if key not in st.session_state:
        saved = ctx.value(target)
        st.session_state[key] = float(saved if saved is not None else spec.minimum or 0.0)

    heading(ctx, target)
    st.slider(
        spec.name,
        min_value=float(spec.minimum or 0.0),
        max_value=float(spec.maximum if spec.maximum is not None else 1.0),
        key=key,
        on_change=lambda: save_target(ctx, target, st.session_state[key]),
        label_visibility="collapsed",
    )


def facts(ctx: ItemContext, target: Target) -> None:
    """A fact-label question: its facts numbered, each with C / M (1 / 0)."""
    spec = target.field
    fact_list(ctx, spec.name, spec.description or spec.name, "1 = C, 0 = M")


def headed(control: Any) -> Any:
    """The control under the question's heading."""

    def draw(ctx: ItemContext, target: Target) -> None:
        heading(ctx, target)
        control(ctx, target)

    return draw


for _name in ("binary", "single", "likert"):
    register_control(_name)(choice)
register_control("score")(score_slider)
register_control("fact_labels")(facts)
register_control("multi_label")(headed(multi_label))
register_control("text")(headed(free_text))
register_control("pairwise")(headed(pairwise))
register_control("spans")(headed(spans))
