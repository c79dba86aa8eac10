"""The registry of task kinds. Kind modules live in ``kinds/builtin/``."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

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


#: Where kinds that are data come from (a Store reading its declared kinds): each
#: resolver maps a name to a kind or None. Held weakly, so a closed store drops out.
_RESOLVERS: list[weakref.WeakMethod] = []
_RESOLVERS_LOCK = threading.Lock()


def add_resolver(method: Callable[[str], TaskKind | None]) -> None:
    """Let ``get_kind`` ask ``method`` (a bound method) for names no module registered."""
    with _RESOLVERS_LOCK:
        _RESOLVERS[:] = [r for r in _RESOLVERS if r() is not None]
        _RESOLVERS.insert(0, weakref.WeakMethod(method))  # the newest store answers first


def get_kind(name: str) -> TaskKind:
    """The kind called ``name``; the error lists the known kinds."""
    if name not in KINDS:
        with _RESOLVERS_LOCK:
            resolvers = [r() for r in _RESOLVERS]
        for resolve in resolvers:
            found = resolve(name) if resolve is not None else None
            if found is not None:
                return found
    return KINDS.get(name)


def kind_names() -> list[str]:
    """Names of every registered kind."""
    return KINDS.names()


def kind_title(name: str) -> str:
    """The kind's title for pickers and tables; its name when a plugin kind's title
    cannot be read (that is a warning naming the plugin, see ``Registry.read``)."""
    if name not in KINDS:  # a declared kind (data, from a store's resolver)
        try:
            return get_kind(name).title
        except Exception:
            return name
    return KINDS.read(name, lambda kind: str(kind.title)) or name
