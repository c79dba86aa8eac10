"""Annotation views, one module per task kind, found by kind name.

A view module defines ``render(ctx: ItemContext) -> None`` and registers it with
:func:`register_view`. The registry discovers the views by importing every module of
this package once (as the kind and evaluator registries do), so nothing lists them.
A kind without a view of its own is drawn by the generic view (registered as ``"*"``)
from its declared item and human fields, so a new kind renders without touching this
package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from common.registry import Registry

if TYPE_CHECKING:
    from ui.annotation.context import ItemContext

ViewFn = Callable[["ItemContext"], None]
#: The fallback view's name: the generic view registers under it.
GENERIC = "*"
VIEWS: Registry[ViewFn] = Registry("annotation view", package=__name__)


def register_view(*kinds: str) -> Callable[[ViewFn], ViewFn]:
    """Decorator: use this function to render items of ``kinds``."""

    def wrap(fn: ViewFn) -> ViewFn:
        for kind in kinds:
            VIEWS.add(kind, fn)
        return fn

    return wrap


def view_for(kind: str) -> ViewFn:
    """The view of a kind, or the generic view."""
    return VIEWS.get(kind if kind in VIEWS else GENERIC)
