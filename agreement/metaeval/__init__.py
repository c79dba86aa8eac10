"""Meta-evaluation of evaluators as the metrics literature reports it: segment, group and
system level correlations, pairwise accuracies, tests between evaluators and their
significance clusters (see docs/metaeval.md).

``build_grid`` turns a project's inputs into systems x groups matrices; ``meta_evaluate``
computes the document. Submodules are imported when used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Grid": "agreement.metaeval.grid",
    "MetaEvalError": "agreement.metaeval.grid",
    "build_grid": "agreement.metaeval.grid",
    "MetaEvaluation": "agreement.metaeval.document",
    "meta_evaluate": "agreement.metaeval.document",
    "SECTION": "agreement.metaeval.document",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'agreement.metaeval' has no attribute {name!r}")
