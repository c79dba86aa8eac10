"""The agreement engine: pure functions over tidy frames, returning typed results.

No streamlit, no store, no evaluators: ``study_inputs.load`` loads a project into
:class:`AgreementInputs`; :func:`build_document` computes everything.

The public names are imported on first use (PEP 562), so importing a small submodule
such as ``agreement.bootstrap`` does not pull in scipy.
"""

from __future__ import annotations

import importlib
from typing import Any

from common.package import own_module

_EXPORTS = {
    "AgreementDocument": "agreement.document",
    "build_document": "agreement.document",
    "AgreementInputs": "agreement.inputs",
    "Ratings": "agreement.ratings",
    "Bias": "agreement.results",
    "BinaryComparison": "agreement.results",
    "Correlation": "agreement.results",
    "Stat": "agreement.results",
    "Measure": "agreement.measures",
    "declare": "agreement.statistics",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(own_module(_EXPORTS[name])), name)
    raise AttributeError(f"module 'agreement' has no attribute {name!r}")
