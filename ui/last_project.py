"""The project this browser used last: a cookie the page sets, read when a session starts,
so a new visit opens where the analyst left off (after the README's project the first
time)."""

from __future__ import annotations

import json
from urllib.parse import unquote

import streamlit as st

COOKIE = "workbench_project"


def last_used() -> str | None:
    """The project name the browser's cookie holds, if any."""
    raw = st.context.cookies.get(COOKIE)
    return unquote(raw) if raw else None


def remember_script(project: str | None) -> str:
    """A ``<script>`` that keeps ``project`` in the cookie for a year ('' without one)."""
    if not project:
        return ""
    value = json.dumps(project).replace("</", "<\\/")
    return (
        f"<script>document.cookie = '{COOKIE}=' + encodeURIComponent({value})"
        " + '; path=/; max-age=31536000; SameSite=Lax';</script>"
    )
