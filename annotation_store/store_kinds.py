"""Declared task kinds in the store: named kinds and their immutable, numbered versions.

The definition arrives checked (``kinds.declared``); the store keeps it with the TOML
text it came from. An edit adds a version and nothing is overwritten, so a project keeps
the version it was made with (its kind is ``decl:NAME@N``) and its labels keep their
meaning. The store also answers ``kinds.get_kind`` for those names (a resolver).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from annotation_store.models import DeclaredKind, DeclaredKindVersion
from annotation_store.store_base import StoreBase, StoreError
from annotation_store.store_versions import Versioned
from kinds.declared import build_kind, kind_ref, parse_definition, split_ref

if TYPE_CHECKING:
    from kinds import TaskKind


@dataclass(frozen=True)
class KindRecord:
    """One version of a declared kind as stored."""

    name: str
    version: int
    definition: dict[str, Any]
    source: str
    created_by: str | None
    created_at: datetime

    @property
    def ref(self) -> str:
        """The kind name projects carry: ``decl:NAME@VERSION``."""
        return kind_ref(self.name, self.version)

    def task_kind(self) -> TaskKind:
        """The version as a :class:`TaskKind`."""
        return build_kind(self.ref, parse_definition(self.definition))

    def to_dict(self) -> dict[str, Any]:
        """JSON form: name, ref, version, who, when, definition."""
        return {
            "name": self.name,
            "ref": self.ref,
            "version": self.version,
            "created_by": self.created_by,
            "created_at": self.created_at.isoformat(timespec="seconds"),
            "definition": self.definition,
        }


def _record(kind: DeclaredKind, row: DeclaredKindVersion) -> KindRecord:
    return KindRecord(
        kind.name, row.version, dict(row.definition), row.source, row.created_by, row.created_at
    )


KINDS = Versioned(
    DeclaredKind, DeclaredKindVersion, "kind_id", "declared kind", "kind", "declared", _record
)


def _pin_kind(store: StoreBase, kind: str) -> str:
    """``decl:NAME`` -> ``decl:NAME@<latest version>``; any other name unchanged."""
    parts = split_ref(kind)
    if parts is None or parts[1] is not None:
        return kind
    return kind_ref(parts[0], KINDS.last_number(store, parts[0]))


class KindsMixin(StoreBase):
    """Declared kinds: save a version, read one, list them, resolve ``decl:`` names."""

    _kind_cache: dict[str, TaskKind]
    _kind_cache_lock: threading.Lock

    def _init_declared_kinds(self) -> None:
        from kinds.registry import add_resolver

        self._kind_cache = {}
        self._kind_cache_lock = threading.Lock()
        add_resolver(self.resolve_declared_kind)

    def save_kind_version(
        self,
        name: str,
        definition: dict[str, Any],
        source: str,
        *,
        created_by: str | None = None,
        new: bool | None = None,
    ) -> KindRecord:
        """Store a checked definition as the kind's next version (1 for a new kind);
        ``new=True`` refuses an existing name, ``new=False`` a missing one."""

        columns = {"definition": dict(definition), "source": source, "created_by": created_by}
        return KINDS.save(self, name, new, lambda: DeclaredKind(name=name), columns)

    def kind_record(self, name: str, version: int | None = None) -> KindRecord:
        """A declared kind's version (the latest when None); StoreError when missing."""
        return KINDS.one(self, name, version)

    def kind_versions(self, name: str) -> list[KindRecord]:
        """Every version of one declared kind, oldest first."""
        return KINDS.history(self, name)

    def kind_records(self) -> list[KindRecord]:
        """The latest version of every declared kind, by name."""
        with self.read() as s:
            return KINDS.newest(s)

    def resolve_declared_kind(self, ref: str) -> TaskKind | None:
        """The kind of a ``decl:NAME@N`` name stored here (None when it is not)."""
        parts = split_ref(ref)
        if parts is None or parts[1] is None:
            return None
        with self._kind_cache_lock:
            if ref in self._kind_cache:
                return self._kind_cache[ref]
        try:
            record = self.kind_record(*parts)
        except StoreError:
            return None
        kind = record.task_kind()  # versions never change, so the cache never goes stale
        with self._kind_cache_lock:
            self._kind_cache[ref] = kind
        return kind
