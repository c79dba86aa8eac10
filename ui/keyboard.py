"""Keyboard shortcuts of the Annotate page: one table, used by the buttons and the help.

Streamlit's native ``st.button(shortcut=...)`` does the key handling; ``c`` and ``r`` are
reserved by Streamlit and never used here. Shortcuts are ignored while typing in a text
field, so the note box is safe.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from kinds import FieldType, HumanField
from kinds.base import FACT_IMPLIED, FACT_NOT_IMPLIED

NEXT_TARGET = "j"
PREVIOUS_TARGET = "k"
SUBMIT = "Enter"
PREVIOUS_ITEM = "Left"
NEXT_ITEM = "Right"
SKIP = "Shift+S"
FLAG = "Shift+F"

HELP_ROWS = (
    ("1 / 0", "fact implied (C) / missing (M); yes / no"),
    ("0-9", "pick a level or label of the highlighted question"),
    (f"{NEXT_TARGET} / {PREVIOUS_TARGET}", "next / previous fact or question"),
    ("Enter", "submit the item and go on"),
    ("← / →", "previous / next item"),
    ("Shift+S", "skip the item"),
    ("Shift+F", "flag / unflag a problem"),
)


def option_keys(field: HumanField) -> list[tuple[Any, str | None]]:
    """(value, key) for every choice of a field, in display order.

    Facts: 1 = C, 0 = M. Binary: 1 = yes, 0 = no. Whole-number levels 0-9 use their own
    digit; other ordered scales use 0, 1, 2 ... by position; label sets use 1, 2, 3 ...
    """
    if field.type is FieldType.FACT_LABELS:
        return [(FACT_IMPLIED, "1"), (FACT_NOT_IMPLIED, "0")]
    if field.type is FieldType.BINARY:
        return [(1, "1"), (0, "0")]
    values = list(field.values)
    if field.type is FieldType.ORDINAL:
        if all(isinstance(v, int) and 0 <= v <= 9 for v in values):
            return [(v, str(v)) for v in values]
        return [(v, str(i) if i <= 9 else None) for i, v in enumerate(values)]
    return [(v, str(i + 1) if i < 9 else None) for i, v in enumerate(values)]


def shortcut_help() -> None:
    """The shortcuts, for the side column (a list: it wraps where a table overflows a
    1024 px window's narrow column)."""
    st.markdown("\n".join(f"- `{k}`: {what}" for k, what in HELP_ROWS))
    st.caption("Shortcuts pause while you type in the note box; click outside it to resume.")
