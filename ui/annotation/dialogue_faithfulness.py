"""Dialogue faithfulness: the act (type, slot, values, description), the turns, yes / no."""

from __future__ import annotations

import html
from typing import Any

import streamlit as st

from ui.annotation import register_view
from ui.annotation.context import ItemContext, Target
from ui.annotation.widgets import question, text_panel


def _code(value: Any) -> str:
    """``value`` as a Markdown code span, shown literally.

    Code spans do not decode HTML entities, so the text must not be HTML-escaped (an
    escaped "Chang's" would read "Chang&#x27;s"); a fence longer than any backtick run
    in the text keeps it whole.
    """
    text = str(value).replace("\n", " ")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def act_markdown(act: dict[str, Any], slot_description: str | None) -> str:
    """The dialogue act as readable Markdown."""
    values = act.get("values") or []
    shown = ", ".join(_code(v) for v in values) if values else "—"
    lines = [
        f"**Act** {_code(act.get('act', '?'))}",
        f"**Slot** {_code(act.get('slot') or '—')}",
        f"**Values** {shown}",
    ]
    if slot_description:
        lines.append(f"*{html.escape(slot_description)}*")
    return "  \n".join(lines)


@register_view("dialogue_faithfulness")
def render(ctx: ItemContext) -> None:
    """Draw a dialogue-faithfulness item."""
    f = ctx.item.fields
    act_col, turns = st.columns([1, 2], gap="medium")
    with act_col, st.container(border=True):
        st.markdown(
            f"**Dialogue act** · <small>{html.escape(str(f.get('service', '')))}</small>",
            unsafe_allow_html=True,
        )
        st.markdown(act_markdown(dict(f.get("act") or {}), f.get("slot_description")))
    with turns:
        if f.get("previous_turn"):
            text_panel("User (previous turn)", f["previous_turn"])
        text_panel("System utterance", f.get("utterance", ""))
    with st.container(border=True):
        question(
            ctx,
            Target(ctx.fields["faithful"]),
            "Does the utterance faithfully realise this act? (1 yes · 0 no)",
        )
