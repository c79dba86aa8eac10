"""The Data page's import of another tool's file: pick the format, map the file's field
names to the project's (the ``--map`` of the command line), import all-or-nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from interop import FORMATS, TOOL_NAMES, format_module
from interop.base import apply_mapping, import_converted, names, read_guarded
from interop.importing import ImportFailure, scoreable_fields

if TYPE_CHECKING:
    from annotation_store import Store

LEAVE_OUT = "(leave out)"
#: Formats whose output is a folder, not one file (the command line imports those).
FOLDER_FORMATS = frozenset({"potato"})


def uploadable() -> list[str]:
    """The formats that come as one file (plugins' included)."""
    return [f for f in FORMATS if f not in FOLDER_FORMATS]


def foreign_import(store: Store, project: str) -> None:
    """An expander: format, file, one picker per field name the file uses, Import."""
    with st.expander(
        "Another tool's file (Label Studio, Argilla, Langfuse, LangSmith, MTurk, Prolific)"
    ):
        fmt = st.selectbox("Format", uploadable(), format_func=TOOL_NAMES.get, key="foreign_format")
        upload = st.file_uploader(
            "File", type=["json", "jsonl", "csv", "parquet"], key=f"foreign_upload_{fmt}"
        )
        if upload is None:
            return
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / Path(upload.name).name
            path.write_bytes(upload.getvalue())
            try:
                converted = read_guarded(format_module(fmt), path)
            except ImportFailure as exc:
                st.error(f"Nothing imported. {exc}")
                return
        ours = scoreable_fields(store, project)
        mapping = {}
        for theirs in names(converted):
            options = [*ours, LEAVE_OUT]
            default = options.index(theirs) if theirs in ours else len(ours)
            chosen = st.selectbox(
                f"Their {theirs!r} is", options, index=default, key=f"foreign_map_{theirs}"
            )
            mapping[theirs] = "" if chosen == LEAVE_OUT else chosen
        if not st.button("Import the file", key="foreign_import"):
            return
        try:
            reports = import_converted(store, project, apply_mapping(converted, mapping))
        except ImportFailure as exc:
            st.error(f"Nothing imported. {exc}")
            return
        for what, report in reports.items():
            st.success(report.summary(what))
            for note in report.notes:
                st.info(note)
