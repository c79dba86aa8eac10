"""Formats, in and out: the workbench's own (CSV, JSONL, Parquet: :mod:`interop.importing`,
:mod:`interop.exporting`; the SGD excerpt) and other tools', one module per tool, all
through the native importers.

Each format module turns a foreign file into native rows (items, labels, scores), each
tagged with the foreign record it came from; :func:`interop.base.import_foreign` then runs
the workbench's own validation on all of them before writing anything, so a foreign file
imports all-or-nothing and an error names the record (``task 3 (id 17), result 'match'``).
Writers go the other way from the native export frames. The formats are registered in
:mod:`interop.formats` (plugins through the ``metric_audit.formats`` entry point group).
"""

from __future__ import annotations

from interop.formats import (
    EXPORT_FORMATS,
    FORMATS,
    TOOL_NAMES,
    Format,
    FormatReader,
    FormatWriter,
    format_module,
    register_format,
)

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "TOOL_NAMES",
    "Format",
    "FormatReader",
    "FormatWriter",
    "format_module",
    "register_format",
]
