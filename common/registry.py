"""A small name -> object registry filled by a decorator and by module discovery.

Task kinds and evaluators each keep one. A registry discovers its entries by importing
every module of its package once (``pkgutil``), so adding a kind or an evaluator means
adding one module, with no list to edit elsewhere. Installed packages add entries through
an entry point group (``metric_audit.evaluators``, ``metric_audit.kinds``): each entry
point names a module (which registers on import, as built-ins do) or the object itself.

An entry may also be registered *lazily*, as a ``"module:object"`` reference
(:meth:`Registry.add_lazy`, as lm-evaluation-harness's placeholders): :meth:`Registry.get`
of that name imports that one module only, so ``cli.py evaluate --evaluator bleu`` never
imports the NLI models. A name with no reference (a plugin, an entry made at run time)
falls back to full discovery. A registry given a ``check`` runs it on every entry it
takes (lazy ones when they are resolved): a wrong object is a one-line error naming it.
A plugin that fails to load (any exception, ``SystemExit`` included) or whose entry
fails when read (:meth:`Registry.read`) is a warning naming it; the built-ins still
work. :func:`plugin_warnings` gathers those warnings for the app's admins.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import os
import pkgutil
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Generic, TypeVar, cast

from common.package import own_module

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger(__name__)
#: What a plugin may raise that must not end the process (Ctrl-C still does).
PLUGIN_FAILURES = (Exception, SystemExit)
#: How long a process waits for its plugins to import (once: a plugin still importing
#: then is given up on, with a warning); after one was given up on, other groups' plugins
#: get :data:`PLUGIN_LATE_S`.
PLUGIN_WAIT_S = 10.0
#: ``WORKBENCH_PLUGINS=0`` starts with the built-ins only (no entry point is read): to
#: rule out a misbehaving plugin, and for the test suite, whose results must not depend
#: on what is installed beside the workbench.
PLUGINS_ENV = "WORKBENCH_PLUGINS"


def plugins_enabled() -> bool:
    """Whether third-party plugins (entry points) are read; on unless turned off."""
    return os.environ.get(PLUGINS_ENV, "1").strip().lower() not in ("0", "off", "false", "no")


PLUGIN_LATE_S = 1.0
_GAVE_UP = threading.Event()
#: Whether reading a registry waits for plugins still importing (the app's pages do not:
#: :func:`never_wait_for_plugins`).
_WAITS: ContextVar[bool] = ContextVar("wait_for_plugins", default=True)
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
        check: Callable[[str, object], None] | None = None,
    ) -> None:
        self.what = what
        self._package = None if package is None else own_module(package)
        self._group = entry_point_group
        self._adopt = adopt  # registers an object an entry point names directly
        self._check = check  # raises TypeError when an object cannot be this kind of entry
        self._lazy: dict[str, str] = {}  # name -> "module:object", resolved on first use
        self.plugin_errors: dict[str, str] = {}
        self._entries: dict[str, T] = {}
        self._lock = threading.RLock()
        self._discovered = False
        self._discovering = False  # a module being discovered may read the registry
        self._builtins_done = False
        self._loads: _PluginLoads | None = None  # the plugins being imported
        _REGISTRIES.append(self)  # type: ignore[arg-type]

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under ``name``."""

        def wrap(obj: T) -> T:
            self.add(name, obj)
            return obj

        return wrap

    def add(self, name: str, obj: T) -> None:
        """Register ``obj``; a second, different object under one name is an error. A
        plugin given up on (too slow to import) registers nothing when it finishes."""
        if getattr(threading.current_thread(), "given_up", False):
            return
        if self._check is not None:
            self._check(name, obj)
        with self._lock:
            existing = self._entries.get(name)
            if existing is not None and existing is not obj:
                raise ValueError(f"{self.what} {name!r} is registered twice")
            self._entries[name] = obj

    def add_if_absent(self, name: str, obj: T) -> bool:
        """Register ``obj`` unless ``name`` is taken (by any entry); False when it is. The
        test and the insert are one step, under the registry's lock. A plugin given up on
        is not refused, but registers nothing (as with :meth:`add`)."""
        if getattr(threading.current_thread(), "given_up", False):
            return True
        if self._check is not None:
            self._check(name, obj)
        with self._lock:
            if name in self._entries:
                return False
            self._entries[name] = obj
            return True

    def add_lazy(self, name: str, ref: str) -> None:
        """Register ``name`` as a ``"module:object"`` reference, imported (and checked)
        the first time the name is read; nothing is imported now."""
        module, sep, attr = ref.partition(":")
        if not (sep and module and attr):
            raise ValueError(f"{self.what} {name!r}: {ref!r} is not a 'module:object' reference")
        with self._lock:
            self._lazy[name] = ref

    def lazy_refs(self) -> dict[str, str]:
        """name -> ``"module:object"`` of every lazily registered name."""
        with self._lock:
            return dict(self._lazy)

    def remove(self, name: str) -> None:
        """Forget the entry called ``name`` (a plugin unloaded, a test's toy entry)."""
        with self._lock:
            self._entries.pop(name, None)

    def _discover(self) -> None:
        if self._discovered or (self._package is None and self._group is None):
            return
        with self._lock:  # the built-ins: our own modules, imported once under the lock
            if self._discovered or self._discovering:
                return
            if self._package is not None and not self._builtins_done:
                self._discovering = True
                try:
                    pkg = importlib.import_module(self._package)
                    for info in pkgutil.iter_modules(pkg.__path__):
                        if not info.name.startswith("_"):
                            importlib.import_module(f"{self._package}.{info.name}")
                    self._builtins_done = True
                finally:
                    self._discovering = False
            if self._group is None:
                self._discovered = True
                return
            if self._loads is None:
                self._loads = _PluginLoads(self, self._group)
            loads = self._loads
        # plugins: third-party code, each imported in a thread of its own, no lock held
        if loads.settle(wait=_WAITS.get()):
            with self._lock:
                if self._loads is loads:
                    self._discovered, self._loads = True, None

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

    def _resolve_lazy(self, name: str) -> None:
        """Import the object the lazy reference of ``name`` names (if any) and register it;
        a reference to a missing or wrong object is a one-line error naming it."""
        with self._lock:
            ref = self._lazy.get(name)
        if ref is None:
            return
        module, _, attr = ref.partition(":")
        obj: object = importlib.import_module(module)
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise TypeError(f"{self.what} {name!r}: {ref!r} names nothing ({part!r} missing)")
            obj = getattr(obj, part)
        # the check (if any) vouches for the type; the module may have registered it already
        self.add(name, cast(T, obj))

    def _lookup(self, name: str) -> T | None:
        """The entry called ``name``: registered already, from its lazy reference, or
        after full discovery; None when there is none."""
        if name not in self._entries:
            self._resolve_lazy(name)
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

    def _discover_all(self) -> None:
        """Full discovery, then every lazy reference no module registered on import."""
        self._discover()
        for name in self.lazy_refs():
            if name not in self._entries:
                try:
                    self._resolve_lazy(name)
                except PLUGIN_FAILURES as exc:  # listed without it; get(name) raises
                    self.note_problem(name, "could not be resolved", exc)

    def has_plugins(self) -> bool:
        """Whether installed packages add entries to this registry (entry points of its
        group, when plugins are on)."""
        if self._group is None or not plugins_enabled():
            return False
        return any(True for _ in entry_points(group=self._group))

    def values(self) -> list[T]:
        """Every registered entry, in the order it was registered."""
        self._discover_all()
        with self._lock:
            return list(self._entries.values())

    def names(self) -> list[str]:
        """All registered names, sorted."""
        self._discover_all()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self._lookup(name)
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


class _PluginLoads:
    """The entry points of one group, each imported (and adopted) in a daemon thread of
    its own, so that a plugin that hangs or loops at import holds no lock and keeps
    nobody waiting past the deadline; it is then given up on with a warning."""

    def __init__(self, registry: Registry[object], group: str) -> None:
        self.registry = registry
        self.wait = PLUGIN_LATE_S if _GAVE_UP.is_set() else PLUGIN_WAIT_S
        self.deadline = time.monotonic() + self.wait
        self.outcomes: dict[str, BaseException | None] = {}
        self.threads: list[tuple[EntryPoint, threading.Thread]] = []
        for ep in entry_points(group=group) if plugins_enabled() else ():
            thread = threading.Thread(
                target=self._load, args=(ep,), name=f"plugin {group} {ep.name}", daemon=True
            )
            self.threads.append((ep, thread))
            thread.start()

    def _load(self, ep: EntryPoint) -> None:
        _WAITS.set(False)  # a plugin reading a registry must not wait for itself
        try:
            obj = ep.load()
            if not isinstance(obj, ModuleType) and self.registry._adopt is not None:
                self.registry._adopt(obj)
            self.outcomes[ep.name] = None
        except PLUGIN_FAILURES as exc:  # a plugin's bug must not take the built-ins down
            self.outcomes[ep.name] = exc

    def settle(self, wait: bool) -> bool:
        """Wait (if ``wait``) until every import ended or the deadline passed; note a
        warning for each that failed or is given up on. True once all are settled."""
        for _, thread in self.threads:
            if wait:
                thread.join(max(0.0, self.deadline - time.monotonic()))
            if thread.is_alive() and time.monotonic() < self.deadline:
                return False  # still importing, in time: ask again later
        for ep, thread in self.threads:
            exc = self.outcomes.get(ep.name)
            if thread.is_alive():
                thread.given_up = True  # type: ignore[attr-defined]
                _GAVE_UP.set()
                exc = TimeoutError(f"still importing after {self.wait:g} s; given up")
            if exc is not None:
                self.registry.note_problem(ep.name, f"({ep.value}) could not be loaded", exc)
        return True


def never_wait_for_plugins() -> None:
    """From here on in this thread (an app page's run), reading a registry never waits for
    plugins still importing: it sees the built-ins and the plugins loaded so far."""
    _WAITS.set(False)


def plugins_installed() -> bool:
    """Whether any installed package has an entry point in one of the workbench's plugin
    groups (``metric_audit.*``), with plugins on: without one, no plugin can fail."""
    if not plugins_enabled():
        return False
    installed = importlib.metadata.entry_points()  # every group: not this module's lookup
    return any(group.startswith("metric_audit.") for group in installed.groups)


def plugin_warnings() -> list[str]:
    """Every plugin problem of every registry (each registry with plugins installed
    discovers its entries first)."""
    out: list[str] = []
    # Without plugins there is nothing to load, and importing every built-in (all the
    # evaluators: a quarter of a second) would only slow down the admin's Home; one look
    # at the installed packages' entry points says so for every registry at once (each
    # look reads every package's metadata: about 40 ms with a hundred packages).
    any_plugin = plugins_installed()
    for registry in list(_REGISTRIES):
        if any_plugin and registry.has_plugins():
            registry.names()
        out += registry.plugin_errors.values()
    return out
