"""Intent match: gold vs predicted side by side, both fact lists with C / M, live P/R/F1."""

from __future__ import annotations

import streamlit as st

from ui.annotation import register_view
from ui.annotation.context import ItemContext, Target
from ui.annotation.widgets import fact_list, live_scores, question, text_panel


@register_view("intent_match")
def render(ctx: ItemContext) -> None:
    """Draw an intent-match item."""
    gold, pred = st.columns(2, gap="medium")
    with gold:
        text_panel("Gold intent", ctx.item.fields.get("gold", ""), caption="reference")
        fact_list(
            ctx,
            "gold_fact_labels",
            "Gold facts → recall",
            "Does the predicted intent state or imply this fact? 1 = C, 0 = M",
        )
    with pred:
        text_panel(
            "Predicted intent",
            ctx.item.fields.get("predicted", ""),
            caption=ctx.item.fields.get("generator") or ctx.item.generator,
        )
        fact_list(
            ctx,
            "predicted_fact_labels",
            "Predicted facts → precision",
            "Does the gold intent state or imply this fact? 1 = C, 0 = M",
        )
    with st.container(border=True):
        scores, same = st.columns([3, 2], vertical_alignment="center")
        with scores:
            live_scores(ctx)
        with same:
            question(ctx, Target(ctx.fields["match"]), "Same task? (1 yes · 0 no)")
