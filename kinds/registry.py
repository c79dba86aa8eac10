"""The registry of task kinds. Kind modules live in ``kinds/builtin/``."""

from __future__ import annotations

from common.registry import Registry
from kinds.base import TaskKind

#: Entry point group through which installed packages add task kinds.
ENTRY_POINT_GROUP = "metric_audit.kinds"


def _adopt(obj: object) -> None:
    """An entry point naming a TaskKind object directly (not its module)."""
    if not isinstance(obj, TaskKind):
        raise TypeError(f"{obj!r} is not a TaskKind")
    KINDS.add(obj.name, obj)


KINDS: Registry[TaskKind] = Registry(
    "task kind", package="kinds.builtin", entry_point_group=ENTRY_POINT_GROUP, adopt=_adopt
)


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


def kind_title(name: str) -> str:
    """The kind's title for pickers and tables; its name when a plugin kind's title
    cannot be read (that is a warning naming the plugin, see ``Registry.read``)."""
    return KINDS.read(name, lambda kind: str(kind.title)) or name
