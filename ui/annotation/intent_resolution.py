"""Intent resolution: query and response, the six-level scale with descriptions."""

from __future__ import annotations

import streamlit as st

from ui.annotation import register_view
from ui.annotation.context import ItemContext, Target
from ui.annotation.widgets import question, text_panel


@register_view("intent_resolution")
def render(ctx: ItemContext) -> None:
    """Draw an intent-resolution item."""
    f = ctx.item.fields
    text_panel("Query", f.get("query", ""))
    text_panel("Response", f.get("response", ""), caption=f.get("generator"))
    with st.container(border=True):
        question(
            ctx,
            Target(ctx.fields["resolution"]),
            "How well does the response resolve the intent? (keys 0-5)",
            horizontal=False,
        )
