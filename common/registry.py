"""A small name -> object registry filled by a decorator and by module discovery.

Task kinds and evaluators each keep one. A registry discovers its entries by importing
every module of its package once (``pkgutil``), so adding a kind or an evaluator means
adding one module, with no list to edit elsewhere.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownEntryError(KeyError):
    """Raised when a name is not registered; the message lists what is."""

    def __str__(self) -> str:
        return str(self.args[0])


class Registry(Generic[T]):
    """Thread-safe registry of named entries of one kind."""

    def __init__(self, what: str, package: str | None = None) -> None:
        self.what = what
        self._package = package
        self._entries: dict[str, T] = {}
        self._lock = threading.RLock()
        self._discovered = False

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under ``name``."""

        def wrap(obj: T) -> T:
            self.add(name, obj)
            return obj

        return wrap

    def add(self, name: str, obj: T) -> None:
        """Register ``obj``; a second, different object under one name is an error."""
        with self._lock:
            existing = self._entries.get(name)
            if existing is not None and existing is not obj:
                raise ValueError(f"{self.what} {name!r} is registered twice")
            self._entries[name] = obj

    def remove(self, name: str) -> None:
        """Forget the entry called ``name`` (a plugin unloaded, a test's toy entry)."""
        with self._lock:
            self._entries.pop(name, None)

    def _discover(self) -> None:
        if self._discovered or self._package is None:
            return
        with self._lock:
            if self._discovered:
                return
            pkg = importlib.import_module(self._package)
            for info in pkgutil.iter_modules(pkg.__path__):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{self._package}.{info.name}")
            self._discovered = True

    def get(self, name: str) -> T:
        """Return the entry called ``name`` or raise with the list of known names."""
        self._discover()
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise UnknownEntryError(f"unknown {self.what} {name!r}; known: {known}") from None

    def names(self) -> list[str]:
        """All registered names, sorted."""
        self._discover()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        self._discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
