"""Below about 1200 px the side panel starts folded, so the page gets the window's width.

Streamlit folds its sidebar by itself only on phone-sized windows (768 px); at 1024 px it
takes about 300 px, and charts turn their labels vertical, tables cut their headers. The
script folds it once per browser tab when the window is narrower than ``NARROW_PX``; the
user opens it again with its button, and it stays as they leave it.
"""

from __future__ import annotations

import streamlit as st

from ui.annotation import client_assets

#: Windows narrower than this start with the sidebar folded.
NARROW_PX = 1200


def fold_sidebar_when_narrow(more: str = "") -> None:
    """Emit the folding script (and ``more`` scripts) as the sidebar's last element.

    Re-emitted with the same body every run, so the browser keeps the element and does
    not run it again; a changed ``more`` runs again (the fold itself runs once a tab).
    The script is ``ui/annotation/client/narrow_fold.js``."""
    script = client_assets.script("narrow_fold.js", {"narrowPx": NARROW_PX}, "narrow")
    st.sidebar.html(script + more, unsafe_allow_javascript=True)
