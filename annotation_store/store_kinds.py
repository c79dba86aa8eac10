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

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from annotation_store.models import DeclaredKind, DeclaredKindVersion
from annotation_store.store_base import StoreBase, StoreError
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


def pin_kind(store: StoreBase, kind: str) -> str:
    """``decl:NAME`` -> ``decl:NAME@<latest version>``; any other name unchanged."""
    parts = split_ref(kind)
    if parts is None or parts[1] is not None:
        return kind
    with store.read() as s:
        version = s.scalar(
            select(func.max(DeclaredKindVersion.version))
            .join(DeclaredKind, DeclaredKind.id == DeclaredKindVersion.kind_id)
            .where(DeclaredKind.name == parts[0])
        )
    if version is None:
        raise StoreError(f"no declared kind named {parts[0]!r}")
    return kind_ref(parts[0], version)


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
        for _attempt in range(5):  # a lost race on the name or the version number
            try:
                return self._save_kind_version(name, definition, source, created_by, new)
            except IntegrityError:
                continue
        raise StoreError(f"kind {name!r} is being saved by someone else; try again")

    def _save_kind_version(
        self,
        name: str,
        definition: dict[str, Any],
        source: str,
        created_by: str | None,
        new: bool | None,
    ) -> KindRecord:
        with self.write() as s:
            kind = s.scalar(select(DeclaredKind).where(DeclaredKind.name == name).with_for_update())
            if kind is None:
                if new is False:
                    raise StoreError(f"no declared kind named {name!r}")
                kind = DeclaredKind(name=name)
                s.add(kind)
                s.flush()
            elif new is True:
                raise StoreError(f"a kind named {name!r} exists; edit it to add a version")
            last = s.scalar(
                select(func.max(DeclaredKindVersion.version)).where(
                    DeclaredKindVersion.kind_id == kind.id
                )
            )
            row = DeclaredKindVersion(
                kind_id=kind.id,
                version=(last or 0) + 1,
                definition=dict(definition),
                source=source,
                created_by=created_by,
            )
            s.add(row)
            s.flush()
            return _record(kind, row)

    def kind_record(self, name: str, version: int | None = None) -> KindRecord:
        """A declared kind's version (the latest when None); StoreError when missing."""
        with self.read() as s:
            kind = s.scalar(select(DeclaredKind).where(DeclaredKind.name == name))
            if kind is None:
                names = s.scalars(select(DeclaredKind.name).order_by(DeclaredKind.name))
                raise StoreError(
                    f"no declared kind named {name!r} (declared: {', '.join(names) or 'none'})"
                )
            query = select(DeclaredKindVersion).where(DeclaredKindVersion.kind_id == kind.id)
            if version is None:
                row = s.scalar(query.order_by(DeclaredKindVersion.version.desc()).limit(1))
            else:
                row = s.scalar(query.where(DeclaredKindVersion.version == version))
            if row is None:
                raise StoreError(f"declared kind {name!r} has no version {version}")
            return _record(kind, row)

    def kind_versions(self, name: str) -> list[KindRecord]:
        """Every version of one declared kind, oldest first."""
        with self.read() as s:
            kind = s.scalar(select(DeclaredKind).where(DeclaredKind.name == name))
            if kind is None:
                raise StoreError(f"no declared kind named {name!r}")
            rows = s.scalars(
                select(DeclaredKindVersion)
                .where(DeclaredKindVersion.kind_id == kind.id)
                .order_by(DeclaredKindVersion.version)
            )
            return [_record(kind, r) for r in rows]

    def kind_records(self) -> list[KindRecord]:
        """The latest version of every declared kind, by name."""
        newest = (
            select(DeclaredKindVersion.kind_id, func.max(DeclaredKindVersion.version).label("v"))
            .group_by(DeclaredKindVersion.kind_id)
            .subquery()
        )
        query = (
            select(DeclaredKind, DeclaredKindVersion)
            .join(newest, newest.c.kind_id == DeclaredKind.id)
            .join(
                DeclaredKindVersion,
                (DeclaredKindVersion.kind_id == DeclaredKind.id)
                & (DeclaredKindVersion.version == newest.c.v),
            )
            .order_by(DeclaredKind.name)
        )
        with self.read() as s:
            return [_record(k, v) for k, v in s.execute(query)]

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
