"""A live side panel's controls for the annotation client: a hidden refresh button and
a mark slot, both inside the panel's fragment.

The client (``ui/annotation/client/panels.js``) writes "updating with the newest labels"
into every mark slot the moment an item is submitted, and presses the refresh buttons once
the submit is saved: a click inside a fragment reruns only that fragment, so the panel
reads the new data version then instead of at its next tick (up to a second later). The
slot carries the data version it was drawn at: a redraw at the same version leaves the
client's mark in place (the same markup is not drawn again), the first redraw at a new
version, which counts the label or says it is counting it, replaces the slot and so
clears the mark.
"""

from __future__ import annotations

from html import escape

import streamlit as st

#: Every refresh button's key starts so; the style sheet hides them, the client finds them.
KEY_PREFIX = "wb_panel_refresh"
#: The class of the mark slots (empty slots are hidden by ui/assets/app.css).
MARK_CLASS = "wb-panel-mark"


def mark_slot_html(panel: str, version: str) -> str:
    """The markup of ``panel``'s empty mark slot at data ``version``."""
    return (
        f'<p class="{MARK_CLASS}" data-panel="{escape(panel)}" '
        f'data-version="{escape(version)}"></p>'
    )


def refresh_button(panel: str) -> bool:
    """Draw ``panel``'s hidden refresh button; True on the run the client's press started."""
    return st.button("Refresh the figures", key=f"{KEY_PREFIX}_{panel}", type="tertiary")


def mark_slot(panel: str, version: str) -> None:
    """Draw ``panel``'s mark slot at data ``version`` (where the panel's lines begin)."""
    st.html(mark_slot_html(panel, version))
