"""A module imported on first attribute access, for heavy libraries on light code paths.

The CLI's quick commands (``--version``, ``projects``) go through modules that also build
pandas frames; importing pandas and NumPy up front would cost them most of their run time.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands in for ``import NAME``; the real import happens on the first attribute use."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loaded: ModuleType | None = None

    def _module(self) -> ModuleType:
        if self._loaded is None:
            self._loaded = importlib.import_module(self._name)
        return self._loaded

    def __getattr__(self, attr: str) -> Any:
        # Only names not set on the instance land here; the module is resolved once.
        return getattr(self._module(), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
