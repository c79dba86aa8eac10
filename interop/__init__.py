"""Other tools' formats, in and out: one module per tool, all through the native importers.

Each format module turns a foreign file into native rows (items, labels, scores), each
tagged with the foreign record it came from; :func:`interop.base.import_foreign` then runs
the workbench's own validation on all of them before writing anything, so a foreign file
imports all-or-nothing and an error names the record (``task 3 (id 17), result 'match'``).
Writers go the other way from the native export frames.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: ``--format`` name -> module. Modules are imported when used (some need pyarrow/datasets).
FORMATS = {
    "label-studio": "interop.label_studio",
    "potato": "interop.potato",
    "argilla": "interop.argilla",
    "langfuse": "interop.langfuse",
    "langsmith": "interop.langsmith",
    "mturk": "interop.mturk",
    "prolific": "interop.prolific",  # no labels in it: the import says so and stops
}

#: Formats the workbench reads but never writes (a crowd platform's results files).
IMPORT_ONLY = ("mturk", "prolific")
#: ``export --format`` choices: the formats that write (their module's ``WRITES``).
EXPORT_FORMATS = tuple(f for f in FORMATS if f not in IMPORT_ONLY)

#: ``--format`` name -> the tool's own name (what screens show).
TOOL_NAMES = {
    "label-studio": "Label Studio",
    "potato": "Potato",
    "argilla": "Argilla",
    "langfuse": "Langfuse",
    "langsmith": "LangSmith",
    "mturk": "MTurk",
    "prolific": "Prolific",
}


def format_module(name: str) -> ModuleType:
    """The module of a ``--format`` name (a clear error for an unknown one)."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}: use one of {', '.join(FORMATS)}")
    return importlib.import_module(FORMATS[name])
