"""The workbench as a Python API, for notebooks and scripts.

The functions here are the ones the command line calls (``commands/`` parses arguments
and prints; the work happens here and in the domain packages), so a notebook and
``workbench`` always agree::

    import metric_audit_workbench as wb  # in a clone: import workbench_api as wb
    store = wb.open_store("sqlite:///audit.db")
    wb.create_project(store, "faithfulness", "binary")
    wb.add_items(store, "faithfulness", items_df)
    doc = wb.agreement(store, "faithfulness")
    wb.agreement_frames(doc)["agreement"]

Names are imported on first use, so ``import workbench_api`` is instant.
"""

from __future__ import annotations

import importlib
from typing import Any

from common.package import own_module
from common.version import __version__

_EXPORTS = {
    "open_store": "workbench_api.data",
    "create_project": "workbench_api.data",
    "parse_settings": "workbench_api.data",
    "projects": "workbench_api.data",
    "add_items": "workbench_api.data",
    "add_labels": "workbench_api.data",
    "add_scores": "workbench_api.data",
    "import_file": "workbench_api.data",
    "export_file": "workbench_api.data",
    "items_frame": "workbench_api.data",
    "labels_frame": "workbench_api.data",
    "scores_frame": "workbench_api.data",
    "evaluate": "workbench_api.evaluation",
    "agreement": "workbench_api.analysis",
    "agreement_frames": "workbench_api.analysis",
    "figures": "workbench_api.analysis",
    "alignment_table": "alignment.table",
    "diff_versions": "alignment.diff",
    "build_report": "reports.render",
    "write_report": "reports.render",
    "export_agreement_bundle": "workbench_api.analysis",
    "comparable": "workbench_api.audit",
    "disagreements": "workbench_api.audit",
    "estimate": "workbench_api.estimates",
    "select_items": "workbench_api.estimates",
    # what the functions above raise on bad input (each a ValueError)
    "StoreError": "annotation_store",
    "ImportFailure": "interop.importing",
    "DeclarationError": "kinds.declared",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(own_module(_EXPORTS[name])), name)
    raise AttributeError(f"module 'workbench_api' has no attribute {name!r}")
