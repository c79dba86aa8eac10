"""Actionability: claim, evidence, verdict, explanation (links open in a new tab), rubric."""

from __future__ import annotations

import streamlit as st

from ui.annotation import register_view
from ui.annotation.context import ItemContext, Target
from ui.annotation.widgets import live_scores, question, text_panel

QUESTIONS = {
    "errors_detected": "1 · Errors detected (0-2)",
    "errors_corrected": "2 · Errors corrected (0-2)",
    "sources": "3 · Sources (0-3)",
}


@register_view("actionability")
def render(ctx: ItemContext) -> None:
    """Draw an actionability item."""
    f = ctx.item.fields
    left, right = st.columns(2, gap="medium")
    with left:
        text_panel("Claim", f.get("claim", ""))
        text_panel("Evidence", f.get("evidence", ""))
    with right:
        text_panel(
            "Explanation",
            f.get("explanation", ""),
            links=True,
            caption=f"verdict: {f.get('label', '')}",
        )
    with st.container(border=True):
        for name, title in QUESTIONS.items():
            question(ctx, Target(ctx.fields[name]), title)
        live_scores(ctx)
