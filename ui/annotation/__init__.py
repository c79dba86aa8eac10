"""The Annotate page's item form, found by kind name.

Every kind is drawn by the one plain form (``ui.annotation.generic``, registered as
``"*"``) from its declared item and human fields, each question by its question type's
control; the annotation client (``ui/annotation/client``) draws the item where it runs,
and this form is its fallback. A plugin may still register a view of its own with
:func:`register_view` (``render(ctx: ItemContext) -> None``); the registry discovers
views by importing every module of this package once, so nothing lists them.
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
