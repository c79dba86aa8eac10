"""Tables in Markdown and HTML, one cell format for both (every report section uses these)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from agreement.statistics import DASH
from reports.text import fmt


def cell(value: Any) -> str:
    """A table cell: strings as they are, numbers rounded, undefined values as a dash."""
    if value is None:
        return DASH
    return value if isinstance(value, str) else fmt(value)


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A Markdown table's lines."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return out


def html_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table, every text escaped."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell(c))}</td>" for c in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
