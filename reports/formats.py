"""Report formats and how a file name maps to one (no heavy imports: the CLI parser uses it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FORMATS = ("html", "md", "json")
#: Significant digits of every number in an exported JSON document.
SIGNIFICANT_DIGITS = 12


def format_of(path: str | Path, explicit: str | None = None) -> str:
    """The format from ``--format`` or the file suffix (.html/.htm, .md/.markdown, .json)."""
    if explicit:
        return explicit
    suffix = Path(path).suffix.lower().lstrip(".")
    return {"htm": "html", "markdown": "md"}.get(suffix, suffix)


def portable_floats(value: Any, digits: int = SIGNIFICANT_DIGITS) -> Any:
    """``value`` with every float rounded to ``digits`` significant digits, through dicts,
    lists and tuples. Two machines that add in another order (BLAS threads, memory
    layout) differ in the last bits of a float; rounded, their JSON documents match."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: portable_floats(v, digits) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [portable_floats(v, digits) for v in value]
    return value
