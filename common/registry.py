"""A small name -> object registry filled by a decorator and by module discovery.

Task kinds and evaluators each keep one. A registry discovers its entries by importing
every module of its package once (``pkgutil``), so adding a kind or an evaluator means
adding one module, with no list to edit elsewhere. Installed packages add entries through
an entry point group (``metric_audit.evaluators``, ``metric_audit.kinds``): each entry
point names a module (which registers on import, as built-ins do) or the object itself.

A registry may also take a cheap *index* (name -> module, read from the modules' source
without importing them, see :func:`source_index`): :meth:`Registry.get` of an indexed
name then imports that one module only, as lm-evaluation-harness's lazy placeholders do,
so ``cli.py evaluate --evaluator bleu`` never imports the NLI models. A name the index
does not know (a plugin, an entry made at run time) falls back to full discovery.
A plugin that fails to load (any exception, ``SystemExit`` included) or whose entry
fails when read (:meth:`Registry.read`) is a warning naming it; the built-ins still
work. :func:`plugin_warnings` gathers those warnings for the app's admins.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from types import ModuleType
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger(__name__)
#: What a plugin may raise that must not end the process (Ctrl-C still does).
PLUGIN_FAILURES = (Exception, SystemExit)
_REGISTRIES: list[Registry[object]] = []


class UnknownEntryError(KeyError):
    """Raised when a name is not registered; the message lists what is."""

    def __str__(self) -> str:
        return str(self.args[0])


class Registry(Generic[T]):
    """Thread-safe registry of named entries of one kind."""

    def __init__(
        self,
        what: str,
        package: str | None = None,
        *,
        entry_point_group: str | None = None,
        adopt: Callable[[object], None] | None = None,
        index: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        self.what = what
        self._package = package
        self._group = entry_point_group
        self._adopt = adopt  # registers an object an entry point names directly
        self._index_fn = index  # name -> module that registers it (read on first use)
        self._index: dict[str, str] | None = None
        self.plugin_errors: dict[str, str] = {}
        self._entries: dict[str, T] = {}
        self._lock = threading.RLock()
        self._discovered = False
        self._discovering = False  # a module being discovered may read the registry
        _REGISTRIES.append(self)  # type: ignore[arg-type]

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
        if self._discovered or (self._package is None and self._group is None):
            return
        with self._lock:
            if self._discovered or self._discovering:
                return
            self._discovering = True
            try:
                if self._package is not None:
                    pkg = importlib.import_module(self._package)
                    for info in pkgutil.iter_modules(pkg.__path__):
                        if not info.name.startswith("_"):
                            importlib.import_module(f"{self._package}.{info.name}")
                if self._group is not None:
                    self._load_plugins(self._group)
                self._discovered = True
            finally:
                self._discovering = False

    def _load_plugins(self, group: str) -> None:
        """Load every entry point of ``group``; a broken one is a warning, not a crash."""
        for ep in entry_points(group=group):
            try:
                obj = ep.load()
                if not isinstance(obj, ModuleType) and self._adopt is not None:
                    self._adopt(obj)
            except PLUGIN_FAILURES as exc:  # a plugin's bug must not take the built-ins down
                self.note_problem(ep.name, f"({ep.value}) could not be loaded", exc)

    def note_problem(self, name: str, what: str, exc: BaseException) -> None:
        """Record, log and warn that the plugin ``name`` failed (``what`` went wrong)."""
        message = f"{self.what} plugin {name!r} {what}: {type(exc).__name__}: {exc}"
        if self.plugin_errors.get(name) == message:
            return
        self.plugin_errors[name] = message
        log.warning(message)
        warnings.warn(message, RuntimeWarning, stacklevel=3)

    def read(self, name: str, reader: Callable[[T], R]) -> R | None:
        """``reader(entry)``, or None with a warning when reading the entry fails (a
        plugin whose attributes raise). Built-in entries are read the same way."""
        entry = self.get(name)
        try:
            return reader(entry)
        except PLUGIN_FAILURES as exc:
            self.note_problem(name, "could not be read", exc)
            return None

    def _load_indexed(self, name: str) -> None:
        """Import the one module the index names for ``name`` (if any)."""
        if self._index_fn is None or self._discovered:
            return
        with self._lock:
            if self._index is None:
                self._index = self._index_fn()
            module = self._index.get(name)
        if module is not None:
            importlib.import_module(module)

    def _lookup(self, name: str) -> T | None:
        """The entry called ``name``: registered already, from its indexed module, or
        after full discovery; None when there is none."""
        if name not in self._entries:
            self._load_indexed(name)
        if name not in self._entries:
            self._discover()
        return self._entries.get(name)

    def get(self, name: str) -> T:
        """Return the entry called ``name`` or raise with the list of known names."""
        entry = self._lookup(name)
        if entry is None and name not in self._entries:
            known = ", ".join(sorted(self._entries)) or "none"
            raise UnknownEntryError(f"unknown {self.what} {name!r}; known: {known}")
        return entry

    def discover(self) -> None:
        """Import the package's modules and the plugins now (once), so that entries added
        afterwards come after the built-ins."""
        self._discover()

    def values(self) -> list[T]:
        """Every registered entry, in the order it was registered."""
        self._discover()
        with self._lock:
            return list(self._entries.values())

    def names(self) -> list[str]:
        """All registered names, sorted."""
        self._discover()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self._lookup(name)
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


def source_index(package: str, pattern: str) -> dict[str, str]:
    """name -> module for every module of ``package`` whose source matches ``pattern``
    (its group 1 is a registered name), read as text: nothing is imported but the
    package itself. A name made at run time is simply not indexed."""
    pkg = importlib.import_module(package)
    found = re.compile(pattern, re.MULTILINE)
    out: dict[str, str] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        spec = getattr(info.module_finder, "find_spec", lambda *_: None)(info.name, None)
        origin = getattr(spec, "origin", None)
        if not origin or not origin.endswith(".py"):
            continue
        with open(origin, encoding="utf-8") as f:
            for name in found.findall(f.read()):
                out.setdefault(name, f"{package}.{info.name}")
    return out


def plugin_warnings() -> list[str]:
    """Every plugin problem of every registry (each registry discovers its entries first)."""
    out: list[str] = []
    for registry in list(_REGISTRIES):
        registry.names()
        out += registry.plugin_errors.values()
    return out
