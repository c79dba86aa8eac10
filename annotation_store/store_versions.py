"""Named records with immutable, numbered versions (declared kinds, judges), shared.

A :class:`Versioned` names the head table (one row per name), the version table and the
column linking them, how the store speaks of them in messages and how a (head, version
row) pair becomes the record the store hands out. It does every read and save of such a
record, so the store's parts for kinds and judges only say what is particular to them.
Saving adds the next version under a row lock on the head (PostgreSQL; SQLite's write
lock already numbers them), and a save that loses a race on the name or the number is
tried again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError

from annotation_store.store_base import StoreError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from annotation_store.store_base import StoreBase

R = TypeVar("R")
ATTEMPTS = 5


@dataclass(frozen=True)
class Versioned(Generic[R]):
    """The tables of one versioned record type, its words in messages and its record."""

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
    #: (head row, version row) -> the record the store hands out
    record: Callable[[Any, Any], R]

    def _link(self) -> Any:
        return getattr(self.version, self.link)

    # -- what the store's parts call -------------------------------------------------

    def save(
        self,
        store: StoreBase,
        name: str,
        new: bool | None,
        make: Callable[[], Any],
        columns: dict[str, Any],
        check: Callable[[Any, bool], None] | None = None,
    ) -> R:
        """Store the next version of ``name`` (1 for a new name, its head made by
        ``make()``) with ``columns``; ``new=True`` refuses an existing name, ``new=False``
        a missing one; ``check(head, made)`` may refuse the save. A save that loses a race
        on the name or the number is tried again."""
        for _attempt in range(ATTEMPTS):
            try:
                with store.write() as s:
                    head, made = self._head_for_save(s, name, new, make)
                    if check is not None:
                        check(head, made)
                    return self.record(head, self._add_next(s, head, columns))
            except IntegrityError:
                continue
        raise StoreError(f"{self.short} {name!r} is being saved by someone else; try again")

    def one(self, store: StoreBase, name: str, version: int | None) -> R:
        """Version ``version`` of ``name`` (the latest when None); StoreError when missing."""
        with store.read() as s:
            return self.record(*self._find(s, name, version))

    def history(self, store: StoreBase, name: str) -> list[R]:
        """Every version of ``name``, oldest first."""
        with store.read() as s:
            head = s.scalar(select(self.head).where(self.head.name == name))
            if head is None:
                raise StoreError(f"no {self.noun} named {name!r}")
            rows = s.scalars(
                select(self.version).where(self._link() == head.id).order_by(self.version.version)
            )
            return [self.record(head, r) for r in rows]

    def newest(self, s: Session, where: Any = None) -> list[R]:
        """The latest version of every name (those matching ``where``), by name."""
        query = self._latest() if where is None else self._latest().where(where)
        return [self.record(head, row) for head, row in s.execute(query)]

    def last_number(self, store: StoreBase, name: str) -> int:
        """The number of the latest version of ``name``; StoreError when there is none."""
        with store.read() as s:
            number = s.scalar(
                select(func.max(self.version.version))
                .join(self.head, self.head.id == self._link())
                .where(self.head.name == name)
            )
        if number is None:
            raise StoreError(f"no {self.noun} named {name!r}")
        return int(number)

    # -- the statements ------------------------------------------------------------

    def _head_for_save(
        self, s: Session, name: str, new: bool | None, make: Callable[[], Any]
    ) -> tuple[Any, bool]:
        """The locked head row of ``name`` (made by ``make()`` when missing) and whether
        it was made."""
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

    def _add_next(self, s: Session, head: Any, columns: dict[str, Any]) -> Any:
        last = s.scalar(select(func.max(self.version.version)).where(self._link() == head.id))
        row = self.version(**{self.link: head.id}, version=(last or 0) + 1, **columns)
        s.add(row)
        s.flush()
        return row

    def _find(self, s: Session, name: str, version: int | None) -> tuple[Any, Any]:
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

    def _latest(self) -> Select[Any]:
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
