"""Unexpected failures on a page: a short reason on screen, the detail in the server log.

No page shows a Python traceback (server paths, code) to a user. Streamlit's own
backstop, ``client.showErrorDetails = "none"`` in ``.streamlit/config.toml``, covers what
no page catches; this is for the places that expect a hostile input (an uploaded file).
"""

from __future__ import annotations

import logging
import re

import streamlit as st

log = logging.getLogger(__name__)
#: Absolute file paths in a message (``/srv/app/x.py``, ``C:\\data\\x``): not shown.
_PATH = re.compile(r"(?:[A-Za-z]:\\|/)(?:[^\s'\"/\\]+[/\\])+")
MAX_REASON = 200


def short_reason(exc: BaseException) -> str:
    """The first line of the exception's message without paths, at most 200 characters
    (its type name when the message is empty)."""
    lines = str(exc).strip().splitlines()
    first = _PATH.sub("", lines[0]).strip() if lines else ""
    if len(first) > MAX_REASON:
        first = first[: MAX_REASON - 1] + "…"
    return first or type(exc).__name__


def show_failure(what: str, exc: BaseException) -> None:
    """Log ``exc`` with its traceback and tell the user in one line that ``what`` failed."""
    log.error("%s failed", what, exc_info=exc)
    st.error(
        f"{what} failed: {short_reason(exc)}. Nothing was changed; the details are in the "
        "server log.",
        icon=":material/error:",
    )
