"""Browser controls of the question types, looked up by the name a type declares.

A :class:`~kinds.question_type.QuestionType` names its control (``control``); the
control is a function ``(ctx, target) -> None`` registered under that name with
:func:`register_control`. The built-in controls live in :mod:`ui.annotation.declared_questions`;
a module of this package or an installed package (entry point group
``metric_audit.question_controls``) adds others. A type whose control is not found is
drawn as a choice among its values, with a warning naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from common.registry import Registry

if TYPE_CHECKING:
    from ui.annotation.context import ItemContext, Target

ControlFn = Callable[["ItemContext", "Target"], None]
ENTRY_POINT_GROUP = "metric_audit.question_controls"
CONTROLS: Registry[ControlFn] = Registry(
    "question control", package="ui.annotation", entry_point_group=ENTRY_POINT_GROUP
)


def register_control(name: str) -> Callable[[ControlFn], ControlFn]:
    """Decorator: draw questions whose type names control ``name`` with this function."""

    def wrap(fn: ControlFn) -> ControlFn:
        CONTROLS.add(name, fn)
        return fn

    return wrap


def control_for(name: str) -> ControlFn | None:
    """The control registered as ``name``, or None."""
    return CONTROLS.get(name) if name in CONTROLS else None
