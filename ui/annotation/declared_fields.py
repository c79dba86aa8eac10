"""Item fields of a declared kind, drawn by their display role.

Markdown is rendered without HTML (Streamlit escapes it unless asked not to) and without
images (``ui.safe_markdown``), plain text literally, a chat transcript turn by turn, a
link only when it is one http(s) address (percent-encoded: exactly one link), code in a
code block. Hidden fields are never drawn; the outputs a pairwise question compares
are drawn by that question, side by side in the annotator's order.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from kinds import ItemField
from ui.annotation.context import ItemContext
from ui.annotation.widgets import _plain, text_panel
from ui.safe_markdown import no_images, one_link


def compared_outputs(ctx: ItemContext) -> set[str]:
    """Output fields some question (pairwise, ranking ...) shows itself."""
    return {o for f in ctx.fields.values() for o in f.question_type.shows_outputs(f)}


def show_field(spec: ItemField, value: Any, title: str | None = None) -> None:
    """One item field by its role, titled ``title`` (default: by its name)."""
    title = title or spec.name.replace("_", " ").capitalize()
    if spec.role == "chat" and isinstance(value, list):
        with st.container(border=True):
            st.markdown(f"**{title}**")
            for turn in value:
                with st.chat_message(str(turn.get("role", "?"))[:20] or "?"):
                    st.markdown(_plain(str(turn.get("content", ""))))
    elif spec.role == "markdown":
        with st.container(border=True):
            st.markdown(f"**{title}**")
            st.markdown(no_images(str(value)))  # no unsafe_allow_html: HTML stays text
    elif spec.role == "code":
        st.markdown(f"**{title}**")
        st.code(str(value), language=None)
    elif spec.role == "link" and (link := one_link(_plain(str(value).strip()), str(value))):
        st.markdown(f"**{title}**: {link}")
    else:
        text_panel(title, str(value))


def declared_fields(ctx: ItemContext) -> None:
    """Every shown field of the item, in declared order."""
    skip = compared_outputs(ctx)
    for spec in ctx.project.task_kind.item_fields:
        if spec.hidden or spec.name in skip or spec.name not in ctx.item.fields:
            continue
        show_field(spec, ctx.item.fields[spec.name])
