"""Named records with immutable, numbered versions (declared kinds, judges), shared.

A :class:`Versioned` names the head table (one row per name), the version table and the
column linking them, and how the store speaks of them in messages. Saving adds the next
version under a row lock on the head (PostgreSQL; SQLite's write lock already numbers
them), and a save that loses a race on the name or the number is tried again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError

from annotation_store.store_base import StoreError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

T = TypeVar("T")
ATTEMPTS = 5


@dataclass(frozen=True)
class Versioned:
    """The tables of one versioned record type and its words in messages."""

    head: Any
    version: Any
    #: the version table's column naming the head row (``kind_id``, ``judge_id``)
    link: str
    #: "declared kind", "judge": in "no judge named 'x'"
    noun: str
    #: "kind", "judge": in "a judge named 'x' exists"
    short: str
    #: "declared", "judges": in "(judges: a, b)"
    listing: str

    def _link(self) -> Any:
        return getattr(self.version, self.link)

    def retried(self, name: str, save: Callable[[], T]) -> T:
        """``save()``, tried again when it loses a race on the name or the number."""
        for _attempt in range(ATTEMPTS):
            try:
                return save()
            except IntegrityError:
                continue
        raise StoreError(f"{self.short} {name!r} is being saved by someone else; try again")

    def head_for_save(
        self, s: Session, name: str, new: bool | None, make: Callable[[], Any]
    ) -> tuple[Any, bool]:
        """The locked head row of ``name`` (made by ``make()`` when missing) and whether
        it was made; ``new=True`` refuses an existing name, ``new=False`` a missing one."""
        head = s.scalar(select(self.head).where(self.head.name == name).with_for_update())
        if head is None:
            if new is False:
                raise StoreError(f"no {self.noun} named {name!r}")
            head = make()
            s.add(head)
            s.flush()
            return head, True
        if new is True:
            raise StoreError(f"a {self.short} named {name!r} exists; edit it to add a version")
        return head, False

    def add_next(self, s: Session, head: Any, **columns: Any) -> Any:
        """The head's next version row (1 for a new head) with ``columns``."""
        last = s.scalar(select(func.max(self.version.version)).where(self._link() == head.id))
        row = self.version(**{self.link: head.id}, version=(last or 0) + 1, **columns)
        s.add(row)
        s.flush()
        return row

    def find(self, s: Session, name: str, version: int | None) -> tuple[Any, Any]:
        """(head, version row) of ``name`` (the latest version when None)."""
        head = s.scalar(select(self.head).where(self.head.name == name))
        if head is None:
            known = ", ".join(s.scalars(select(self.head.name).order_by(self.head.name)))
            raise StoreError(f"no {self.noun} named {name!r} ({self.listing}: {known or 'none'})")
        query = select(self.version).where(self._link() == head.id)
        if version is None:
            row = s.scalar(query.order_by(self.version.version.desc()).limit(1))
        else:
            row = s.scalar(query.where(self.version.version == version))
        if row is None:
            raise StoreError(f"{self.noun} {name!r} has no version {version}")
        return head, row

    def all_of(self, s: Session, name: str) -> list[tuple[Any, Any]]:
        """(head, version row) of every version of ``name``, oldest first."""
        head = s.scalar(select(self.head).where(self.head.name == name))
        if head is None:
            raise StoreError(f"no {self.noun} named {name!r}")
        rows = s.scalars(
            select(self.version).where(self._link() == head.id).order_by(self.version.version)
        )
        return [(head, r) for r in rows]

    def latest(self) -> Select[Any]:
        """(head, latest version row) of every name, by name."""
        newest = (
            select(self._link().label("head_id"), func.max(self.version.version).label("v"))
            .group_by(self._link())
            .subquery()
        )
        return (
            select(self.head, self.version)
            .join(newest, newest.c.head_id == self.head.id)
            .join(
                self.version,
                (self._link() == self.head.id) & (self.version.version == newest.c.v),
            )
            .order_by(self.head.name)
        )
