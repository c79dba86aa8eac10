"""Annotation views, one module per task kind, found by kind name.

A view module defines ``render(ctx: ItemContext) -> None`` and registers it with
:func:`register_view`. Kinds without a view of their own use the generic one, so a new
kind renders without touching this package.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ui.annotation.context import ItemContext

ViewFn = Callable[["ItemContext"], None]
_VIEWS: dict[str, ViewFn] = {}
_MODULES = (
    "intent_match",
    "actionability",
    "dialogue_faithfulness",
    "intent_resolution",
    "generic",
)


def register_view(*kinds: str) -> Callable[[ViewFn], ViewFn]:
    """Decorator: use this function to render items of ``kinds``."""

    def wrap(fn: ViewFn) -> ViewFn:
        for kind in kinds:
            _VIEWS[kind] = fn
        return fn

    return wrap


def view_for(kind: str) -> ViewFn:
    """The view of a kind, or the generic view."""
    # Import every view module (a no-op once imported): one imported on its own, say for
    # a helper, must not stand in for the whole registry.
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return _VIEWS.get(kind, _VIEWS["*"])
