"""Agreement reports: a project's document from its inputs (``study_inputs``), rendered.

Public names are imported on first use (PEP 562) to keep the command line quick to start.
"""

from __future__ import annotations

import importlib
from typing import Any

from common.package import own_module

_EXPORTS = {
    "agreement_document": "reports.data",
    "Report": "reports.render",
    "build_report": "reports.render",
    "render_report": "reports.render",
    "write_report": "reports.render",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(own_module(_EXPORTS[name])), name)
    raise AttributeError(f"module 'reports' has no attribute {name!r}")
