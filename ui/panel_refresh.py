"""A live side panel's prompt redraw: a hidden button inside the panel's fragment.

The annotation client presses it once a submit is saved (``ui/annotation/client/lane.js``,
``refreshPanels``): a click inside a fragment reruns only that fragment, so the panel reads
the new data version then instead of at its next tick (up to a second later).
"""

from __future__ import annotations

import streamlit as st

#: Every refresh button's key starts so; the style sheet hides them, the client finds them.
KEY_PREFIX = "wb_panel_refresh"


def refresh_button(panel: str) -> bool:
    """Draw ``panel``'s hidden refresh button (inside its live fragment); True on the
    run the client's press started."""
    return st.button("Refresh the figures", key=f"{KEY_PREFIX}_{panel}", type="tertiary")
