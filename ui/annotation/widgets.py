"""Shared pieces of every annotation view: text panels, choice rows, live scores."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

import streamlit as st

from kinds import FieldType
from ui import keyboard
from ui.annotation.context import ItemContext, Target, derived_values, facts_of, save_target
from ui.annotation.fast_lane import inline_text
from ui.safe_markdown import no_images

#: Shown beside a question or fact still unanswered after a refused Submit.
MISSING_MARK = " :red-badge[:material/priority_high: answer this]"
_URL = re.compile(r"(?<![\(\[<\"'])\bhttps?://[^\s<>\)\]]+")


def linkify(text: str) -> str:
    """Markdown with bare URLs turned into links (Streamlit opens them in a new tab)."""
    return _URL.sub(lambda m: f"[{m.group(0)}]({m.group(0)})", no_images(text))


def text_panel(title: str, body: str, *, caption: str | None = None, links: bool = False) -> None:
    """A labelled, bordered block of item text."""
    with st.container(border=True):
        st.markdown(
            f"**{title}**" + (f" · <small>{html.escape(caption)}</small>" if caption else ""),
            unsafe_allow_html=True,
        )
        st.markdown(linkify(body) if links else _plain(body))


def _plain(text: str) -> str:
    """Show item text literally (no accidental Markdown from the data)."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|>~:$])", r"\\\1", text).replace("\n", "  \n")


def _option_label(field_type: FieldType, value: Any, desc: str | None) -> str:
    if field_type is FieldType.FACT_LABELS:
        return str(value)
    if desc:
        desc = no_images(desc)
        return f"{value} · {desc}" if field_type is not FieldType.BINARY else desc
    return str(value)


def choice_buttons(
    ctx: ItemContext, target: Target, *, horizontal: bool = True, compact: bool = False
) -> None:
    """The choices of one target as buttons; the saved one is highlighted.

    Only the highlighted target's buttons carry digit shortcuts, so each key has exactly
    one button.
    """
    spec = target.field
    current = ctx.value(target)
    focused = ctx.is_focused(target)
    descriptions: Mapping[Any, str] = spec.level_descriptions or {}
    box = (
        # Wrapping: in a narrow column (a 1024 px window) M goes under C instead of
        # being cut off at the column's edge.
        st.container(horizontal=True, gap="small", wrap=True) if horizontal else st.container()
    )
    with box:
        for value, key in keyboard.option_keys(spec):
            label = _option_label(spec.type, value, descriptions.get(value))
            if spec.type is FieldType.BINARY and not descriptions:
                label = "yes" if value == 1 else "no"
            elif key and not _same(key, value) and spec.type is not FieldType.FACT_LABELS:
                # A key that is not the value itself (levels 0.0-1.0 on keys 0-5, labels
                # on 1, 2, ...) is printed on its button, so "1" never surprises anyone.
                label = f"[{key}] {label}"
            chosen = current is not None and _same(current, value)
            widget_key = f"opt::{ctx.token}::{target.key}::{value}"
            ctx.bind_key(target, key, widget_key)
            box.button(
                label,
                key=widget_key,
                type="primary" if chosen else "secondary",
                shortcut=key if focused and key else None,
                on_click=save_target,
                args=(ctx, target, value),
                width="content" if (horizontal or compact) else "stretch",
            )


def _same(a: Any, b: Any) -> bool:
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def question(
    ctx: ItemContext, target: Target, title: str | None = None, *, horizontal: bool = True
) -> None:
    """A question (its description as the prompt) with its choice buttons."""
    spec = target.field
    focused = ctx.is_focused(target)
    text = no_images(title or spec.description or spec.name)
    answered = ctx.value(target) is not None
    mark = "▸ " if focused else ""
    tick = " ✓" if answered else MISSING_MARK if ctx.is_missing(target) else ""
    st.markdown(f":blue-background[**{mark}{text}**]{tick}" if focused else f"**{text}**{tick}")
    choice_buttons(ctx, target, horizontal=horizontal)


def fact_list(ctx: ItemContext, field_name: str, title: str, hint: str) -> None:
    """A numbered fact list, each fact with C / M buttons."""
    spec = ctx.fields[field_name]
    facts = facts_of(ctx, spec)
    with st.container(border=True):
        st.markdown(f"**{title}**  \n<small>{html.escape(hint)}</small>", unsafe_allow_html=True)
        if not facts:
            st.caption("No facts for this side (nothing to label).")
            return
        for i, fact in enumerate(facts):
            target = Target(spec, i)
            focused = ctx.is_focused(target)
            text, buttons = st.columns([4, 3], vertical_alignment="center", gap="small")
            label = f"{i + 1}. {_plain(fact)}"
            todo = MISSING_MARK if ctx.is_missing(target) else ""
            text.markdown((f":blue-background[**▸ {label}**]" if focused else label) + todo)
            with buttons:
                choice_buttons(ctx, target, compact=True)


def live_scores(
    ctx: ItemContext, names: list[str] | None = None, fmt: str = "{:.2f}"
) -> dict[str, float | None]:
    """The kind's derived scores of this annotator's labels, as metrics."""
    kind = ctx.project.task_kind
    scores = derived_values(ctx)
    specs = [d for d in kind.derived_scores if names is None or d.name in names]
    cols = st.columns(len(specs)) if specs else []
    for col, spec in zip(cols, specs, strict=True):
        value = scores.get(spec.name)
        col.metric(
            spec.name.capitalize(),
            "—" if value is None else fmt.format(value),
            help=spec.description,
        )
    return scores


def context_table(fields: Mapping[str, Any]) -> None:
    """Extra item columns as a compact key/value list (an object's keys and values as
    text, never a Python repr)."""
    if not fields:
        return
    rows = "\n".join(
        f"| {html.escape(str(k))} | {_plain(inline_text(v))} |" for k, v in fields.items()
    )
    st.markdown(f"| Context | Value |\n|---|---|\n{rows}")
