"""Report formats and how a file name maps to one (no heavy imports: the CLI parser uses it)."""

from __future__ import annotations

from pathlib import Path

FORMATS = ("html", "md", "json")


def format_of(path: str | Path, explicit: str | None = None) -> str:
    """The format from ``--format`` or the file suffix (.html/.htm, .md/.markdown, .json)."""
    if explicit:
        return explicit
    suffix = Path(path).suffix.lower().lstrip(".")
    return {"htm": "html", "markdown": "md"}.get(suffix, suffix)
