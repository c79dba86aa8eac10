"""The typed base of the Store's parts: engine, short sessions and the row lookups they share.

``Store`` is ``ProjectsMixin + LabelsMixin + ResultsMixin`` over this base; each part
reaches the others' rows only through the methods here, so no part borrows from another
as ``Any``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.exc import DBAPIError

from annotation_store.item_upsert import FACT_FIELDS
from annotation_store.models import Annotator, FactListVersion, Item, Project, map_models, utcnow
from annotation_store.records import ROLES
from kinds import ValidationError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker


def dialect_insert(s: Session, table: Any) -> Any:
    """An INSERT that supports ``on_conflict_do_nothing`` on SQLite and PostgreSQL."""
    if s.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


class StoreError(ValueError):
    """A request the store refuses (unknown project, duplicate name ...)."""


T = TypeVar("T")


class _Pin:
    """The one connection a request's reads and writes share (see ``one_connection``):
    ``busy`` while a unit (statement, session) runs on it, ``used`` once one finished,
    ``autocommit`` whether it is in autocommit now."""

    __slots__ = ("store", "conn", "busy", "used", "autocommit")

    def __init__(self, store: StoreBase, conn: Connection) -> None:
        self.store, self.conn = store, conn
        self.busy = self.used = self.autocommit = False

    def mode(self, autocommit: bool) -> Connection:
        """The connection in autocommit (one read statement) or in transactions."""
        if autocommit != self.autocommit:
            level = "AUTOCOMMIT" if autocommit else self.conn.default_isolation_level
            self.conn.execution_options(isolation_level=level)
            self.autocommit = autocommit
        return self.conn


_PINNED: ContextVar[_Pin | None] = ContextVar("store_pinned_connection", default=None)


class StoreBase:
    """Engine, sessions and row lookups; ``Store.__init__`` sets the attributes."""

    url: str
    engine: Engine
    is_sqlite: bool
    _write_bind: Engine  # SQLite: BEGIN IMMEDIATE, the write lock taken up front
    _factories: tuple[sessionmaker[Session], sessionmaker[Session]] | None = None
    _write_turn: threading.RLock | None  # SQLite: this process's writers queue here
    _statement_bind: Engine  # autocommit on PostgreSQL: see read_statement
    #: One line per label import a killed process left half-written, undone since opening.
    recovered_imports: list[str]

    @contextmanager
    def _write_lock(self, conn: Connection) -> Iterator[None]:
        """A write transaction on ``conn`` (SQLite: ``BEGIN IMMEDIATE`` after this
        process's other writers), as :meth:`write` takes for its sessions."""
        options = {"sqlite_begin": "IMMEDIATE"} if self.is_sqlite else {}
        with self._write_turn or nullcontext(), conn.execution_options(**options).begin():
            yield

    # -- one connection per request (PostgreSQL) ---------------------------------------
    def one_connection(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` with every read and write of this store in it (in this thread)
        on one pooled connection: one checkout for a whole request instead of one per
        statement or session. Units still run as they would (a read statement in
        autocommit, a session in its own transaction); one nested in another takes a
        connection of its own, as before. The pool pings no connection at checkout on
        PostgreSQL (``db.make_engine``): a connection found dead by the work's first
        statement is replaced and ``work`` run once more, since nothing was done yet.
        SQLite checkouts cost no round trip: the work just runs."""
        if self.is_sqlite or _PINNED.get() is not None:
            return work(*args)
        for attempt in (1, 2):
            pin = _Pin(self, self.engine.connect())
            token = _PINNED.set(pin)
            try:
                return work(*args)
            except DBAPIError as exc:
                if attempt == 2 or pin.used or not exc.connection_invalidated:
                    raise
            finally:
                _PINNED.reset(token)
                pin.conn.close()
        raise AssertionError("unreachable")

    def _pin(self) -> _Pin | None:
        """The request's connection when it is free for one more unit, else None."""
        pin = _PINNED.get()
        if pin is None or pin.busy or pin.store is not self:
            return None
        return pin

    @contextmanager
    def _pinned(self, pin: _Pin, autocommit: bool) -> Iterator[Connection]:
        """One unit on the request's connection; whatever it left open is rolled back
        (a finished transaction leaves nothing; in autocommit nothing is sent)."""
        pin.busy, conn = True, pin.conn
        try:
            conn = pin.mode(autocommit)
            yield conn
            pin.used = True
        finally:
            if conn.in_transaction():
                conn.rollback()
            pin.busy = False

    @contextmanager
    def read_statement(self) -> Iterator[Connection]:
        """A connection for ONE read statement (hot paths such as the label save).

        A single statement sees one snapshot by itself, so on PostgreSQL it runs in
        autocommit: no BEGIN / ROLLBACK round trips.
        """
        pin = self._pin()
        if pin is not None:
            with self._pinned(pin, autocommit=True) as conn:
                yield conn
            return
        with self._statement_bind.connect() as conn:
            yield conn

    @contextmanager
    def read_connection(self) -> Iterator[Connection]:
        """A connection for Core reads in one transaction, rolled back on exit: what
        :meth:`read` gives, without an ORM session (so without importing the ORM)."""
        pin = self._pin()
        if pin is not None:
            with self._pinned(pin, autocommit=False) as conn:
                yield conn
            return
        with self.engine.connect() as conn:
            yield conn

    @contextmanager
    def write_statement(self) -> Iterator[Connection]:
        """A connection in one transaction for Core writes: committed on success, rolled
        back on error, and queued for SQLite's writer like :meth:`write`."""
        pin = self._pin()
        if pin is not None:
            with self._pinned(pin, autocommit=False) as conn, conn.begin():
                yield conn
            return
        with self._write_turn or nullcontext(), self._write_bind.begin() as conn:
            yield conn

    def _sessions(self) -> tuple[sessionmaker[Session], sessionmaker[Session]]:
        """The read and write session factories, made (with the ORM mapping) on first use,
        so a process that runs only Core statements never imports the ORM."""
        if self._factories is None:
            from sqlalchemy.orm import sessionmaker

            map_models()
            self._factories = (
                sessionmaker(self.engine, expire_on_commit=False),
                sessionmaker(self._write_bind, expire_on_commit=False),
            )
        return self._factories

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for queries; rolled back on exit."""
        factory = self._sessions()[0]
        pin = self._pin()
        if pin is not None:
            with self._pinned(pin, autocommit=False) as conn, factory(bind=conn) as session:
                yield session
            return
        with factory() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session for one atomic change: committed on success, rolled back on error."""
        factory = self._sessions()[1]
        pin = self._pin()
        if pin is not None:
            with (
                self._pinned(pin, autocommit=False) as conn,
                factory(bind=conn) as session,
                session.begin(),
            ):
                yield session
            return
        if self._write_turn is None:
            with factory() as session, session.begin():
                yield session
            return
        with self._write_turn, factory() as session, session.begin():
            yield session

    @staticmethod
    def _project_id(conn: Connection, name: str) -> int:
        """The primary key of the project called ``name`` (a Core query)."""
        projects = Project.__table__
        pid = conn.scalar(select(projects.c.id).where(projects.c.name == name))
        if pid is None:
            raise StoreError(f"no project called {name!r}")
        return int(pid)

    @staticmethod
    def _project_row(s: Session, name: str) -> Project:
        row = s.scalar(select(Project).where(Project.name == name))
        if row is None:
            raise StoreError(f"no project called {name!r}")
        return row

    @staticmethod
    def _item_keys(s: Session, project_id: int) -> list[tuple[int, str]]:
        """(primary key, item_id) of every item of a project, in position order."""
        q = select(Item.id, Item.item_id).where(Item.project_id == project_id)
        return [(r[0], r[1]) for r in s.execute(q.order_by(Item.position)).all()]

    @staticmethod
    def _item_row(s: Session, project_id: int, item_id: str) -> Item:
        row = s.scalar(select(Item).where(Item.project_id == project_id, Item.item_id == item_id))
        if row is None:
            raise StoreError(f"no item {item_id!r} in this project")
        return row

    def _annotator_row(self, s: Session, name: str, role: str = "annotator") -> Annotator:
        name = name.strip()
        if not name:
            raise ValidationError("annotator name is empty")
        if role not in ROLES:
            raise ValidationError(f"role must be one of {ROLES}, got {role!r}")
        row = s.scalar(select(Annotator).where(Annotator.name == name))
        if row is None:
            # Two sessions may meet a new name at once: insert-or-ignore, then read.
            s.execute(
                dialect_insert(s, Annotator)
                .values(
                    name=name,
                    role=role,
                    active=True,
                    created_at=utcnow(),
                )
                .on_conflict_do_nothing(index_elements=["name"])
            )
            row = s.scalars(select(Annotator).where(Annotator.name == name)).one()
        return row

    @staticmethod
    def _record_facts(
        s: Session,
        item: Item,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        source: str,
        by: str | None = None,
    ) -> None:
        for name in FACT_FIELDS:
            if name in new and new.get(name) != old.get(name):
                version = (
                    s.scalar(
                        select(func.max(FactListVersion.version)).where(
                            FactListVersion.item_pk == item.id, FactListVersion.field == name
                        )
                    )
                    or 0
                ) + 1
                s.add(
                    FactListVersion(
                        item_pk=item.id,
                        field=name,
                        version=version,
                        facts=list(new[name]),
                        source=source,
                        created_by=by,
                    )
                )
