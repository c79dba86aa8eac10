"""The app's own style sheet (``ui/assets/app.css``), put on every page by ``app.py``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit as st

CSS = Path(__file__).parent / "assets" / "app.css"


@cache
def css() -> str:
    """The style sheet's text (read once per process)."""
    return CSS.read_text(encoding="utf-8")


def apply() -> None:
    """Put the style sheet on this run's page (a style element: it takes no space)."""
    st.html(f"<style>{css()}</style>")
