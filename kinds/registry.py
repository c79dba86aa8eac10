"""The registry of task kinds. Kind modules live in ``kinds/builtin/``."""

from __future__ import annotations

from common.registry import Registry
from kinds.base import TaskKind

KINDS: Registry[TaskKind] = Registry("task kind", package="kinds.builtin")


def register_kind(kind: TaskKind) -> TaskKind:
    """Register a task kind under its name and return it."""
    KINDS.add(kind.name, kind)
    return kind


def get_kind(name: str) -> TaskKind:
    """The kind called ``name``; the error lists the known kinds."""
    return KINDS.get(name)


def kind_names() -> list[str]:
    """Names of every registered kind."""
    return KINDS.names()
