"""The Data page's import of an uploaded file: the report, or one line saying why not."""

from __future__ import annotations

import streamlit as st

from annotation_store import Store
from interop.importing import IMPORTERS, ImportFailure, import_items
from ui.failures import show_failure
from ui.items_browser import bar_update


def import_upload(store: Store, project: str, what: str, name: str, data: bytes) -> None:
    """Import ``data`` (file ``name``) as ``what`` into ``project`` and say how it went; a
    failure the importer did not foresee is logged and shown in one line, no traceback."""
    bar = None
    try:
        if what == "items":  # the big one: show how far the check and the write are
            bar = st.progress(0.0, text="Reading the file")
            report = import_items(store, project, data, name, on_progress=bar_update(bar))
        else:
            report = IMPORTERS[what](store, project, data, name)
    except ImportFailure as exc:
        st.error(f"Nothing imported. {exc}")
    except Exception as exc:  # a hostile file nobody foresaw: short reason, log the rest
        show_failure(f"Importing {name!r}", exc)
    else:
        st.success(report.summary(what))
    finally:
        if bar is not None:  # a refused file leaves no half-filled bar behind
            bar.empty()
