"""The registry of import/export formats: what a format module defines, and where each is.

A format is a :class:`Format` (its ``--format`` name, the tool's own name and the module
that reads and writes it) in :data:`REGISTRY`, the same :class:`~common.registry.Registry`
evaluators and measures use. The built-ins are registered below by module path, so
nothing is imported until a format is used (some need pyarrow or datasets). Installed
packages add formats through the entry point group ``metric_audit.formats``: the entry
point names a :class:`Format` object, or a module that calls :func:`register_format` on
import. A format module is checked against :class:`FormatReader` / :class:`FormatWriter`
when it is loaded (at registration, when it is given as a module object): a missing part
is a one-line error naming it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from common.registry import Registry

if TYPE_CHECKING:
    from annotation_store import Store
    from interop.base import Converted

#: Entry point group through which installed packages add formats.
ENTRY_POINT_GROUP = "metric_audit.formats"
#: What an export may hold (a format's ``WRITES`` names some of these).
EXPORTABLE = ("items", "annotations", "scores")


@runtime_checkable
class FormatReader(Protocol):
    """What every format module defines: what it exports (maybe nothing) and a reader."""

    WRITES: tuple[str, ...]

    def read(self, path: str | Path) -> Converted:
        """The native rows of the foreign file or folder at ``path``."""
        ...


@runtime_checkable
class FormatWriter(FormatReader, Protocol):
    """A format module that exports (its ``WRITES`` is not empty) also defines a writer."""

    def write(
        self, store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
    ) -> int:
        """Write ``what`` of ``project`` to ``out``; returns how many records it wrote."""
        ...


def check_module(name: str, module: object) -> FormatReader:
    """``module`` as a format module, or a one-line TypeError naming what it lacks."""
    where = getattr(module, "__name__", repr(module))
    writes = getattr(module, "WRITES", None)
    if not isinstance(writes, tuple) or not all(w in EXPORTABLE for w in writes):
        raise TypeError(
            f"format {name!r}: {where} needs WRITES, a tuple of {', '.join(EXPORTABLE)} "
            f"(empty when it only imports), not {writes!r}"
        )
    for part in ("read", "write") if writes else ("read",):
        if not callable(getattr(module, part, None)):
            raise TypeError(f"format {name!r}: {where} defines no {part}() function")
    return module  # type: ignore[return-value]


@dataclass(frozen=True)
class Format:
    """One import/export format: ``name`` (``--format``), ``tool`` (the tool's own name,
    what screens show) and ``module`` (its module, or the module's dotted path)."""

    name: str
    tool: str
    module: str | ModuleType

    def load(self) -> FormatReader:
        """The format module, imported on first use and checked."""
        module = self.module
        if isinstance(module, str):
            module = importlib.import_module(module)
        return check_module(self.name, module)


def _check(name: str, obj: object) -> None:
    """A format entry is a :class:`Format` under its own name; a module given as an object
    (not a path) is checked now."""
    if not isinstance(obj, Format):
        raise TypeError(f"format {name!r}: {obj!r} is not a Format")
    if obj.name != name:
        raise TypeError(f"format {name!r}: it is declared as {obj.name!r}")
    if isinstance(obj.module, ModuleType):
        check_module(name, obj.module)


def _adopt(obj: object) -> None:
    """An entry point naming a :class:`Format` directly (not a module that registers one)."""
    if not isinstance(obj, Format):
        raise TypeError(f"{obj!r} is not a Format")
    REGISTRY.add(obj.name, obj)


REGISTRY: Registry[Format] = Registry(
    "format", entry_point_group=ENTRY_POINT_GROUP, adopt=_adopt, check=_check
)


def register_format(name: str, tool: str, module: str | ModuleType) -> Format:
    """Register the format ``name`` of ``tool``, read and written by ``module`` (a module
    object is checked now, a dotted path when the format is first used)."""
    fmt = Format(name, tool, module)
    REGISTRY.add(name, fmt)
    return fmt


for _name, _tool, _module in (
    ("label-studio", "Label Studio", "label_studio"),
    ("potato", "Potato", "potato"),
    ("argilla", "Argilla", "argilla"),
    ("langfuse", "Langfuse", "langfuse"),
    ("langsmith", "LangSmith", "langsmith"),
    ("mturk", "MTurk", "mturk"),
    ("prolific", "Prolific", "prolific"),  # no labels in it: the import says so
):
    register_format(_name, _tool, f"{__package__}.{_module}")  # as this copy names it


def format_module(name: str) -> FormatReader:
    """The module of a ``--format`` name (a clear error for an unknown one)."""
    if name not in REGISTRY:
        raise ValueError(f"unknown format {name!r}: use one of {', '.join(FORMATS)}")
    return REGISTRY.get(name).load()


class FormatNames:
    """Every ``--format`` name, built-ins first, in registration order. Testing a name
    imports no plugin unless the name is unknown; listing them loads the plugins."""

    def __iter__(self) -> Iterator[str]:
        return iter([f.name for f in REGISTRY.values()])

    def __contains__(self, name: object) -> bool:
        return name in REGISTRY

    def __len__(self) -> int:
        return len(REGISTRY.values())


class ExportFormatNames(FormatNames):
    """The ``--format`` names ``export`` takes: formats whose module writes (``WRITES``
    not empty; MTurk and Prolific results are imported only). Testing a name imports
    that format's module; listing them imports every one (help only)."""

    def __iter__(self) -> Iterator[str]:
        return iter([n for n in FormatNames() if format_module(n).WRITES])

    def __contains__(self, name: object) -> bool:
        return name in REGISTRY and bool(format_module(str(name)).WRITES)

    def __len__(self) -> int:
        return len(list(iter(self)))


class ToolNames(Mapping[str, str]):
    """``--format`` name -> the tool's own name (what screens show)."""

    def __getitem__(self, name: str) -> str:
        if name not in REGISTRY:
            raise KeyError(name)
        return REGISTRY.get(name).tool

    def __iter__(self) -> Iterator[str]:
        return iter(FormatNames())

    def __len__(self) -> int:
        return len(FormatNames())


#: Every format name (a live view: plugins included).
FORMATS = FormatNames()
#: The formats ``export`` writes (a live view).
EXPORT_FORMATS = ExportFormatNames()
#: ``--format`` name -> the tool's own name.
TOOL_NAMES = ToolNames()
