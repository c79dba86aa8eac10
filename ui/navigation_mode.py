"""App navigation from a fresh server's first run on, without a rerun (issue #47).

Streamlit treats an app beside a ``pages/`` folder as a legacy multipage app until some
session has run ``st.navigation``: that first run goes through a navigation built from
the folder (an entry per file in the sidebar, and ``/home`` runs ``pages/home.py``
without app.py's sign-in). .streamlit/config.toml therefore hides the sidebar page list,
and app.py, run alone, shows it again and reruns its first page. ``serve.py`` calls
:func:`use_app_navigation` before any session starts, so app.py's first run is an
ordinary one and needs no rerun.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

SIDEBAR_NAVIGATION = "client.showSidebarNavigation"


def use_app_navigation() -> None:
    """Route every run through app.py's ``st.navigation`` and show its sidebar list."""
    # What st.navigation itself sets on its first call; until then each new session
    # would decide from the pages/ folder.
    PagesManager.uses_pages_directory = False
    st.set_option(SIDEBAR_NAVIGATION, True)
