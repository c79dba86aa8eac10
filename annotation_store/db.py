"""Engine creation and schema migration for SQLite (default) and PostgreSQL.

SQLite gets WAL, a busy timeout and foreign keys on every connection. Python's sqlite3
driver opens transactions lazily, which lets two writers deadlock on the lock upgrade;
so the driver's own transaction handling is switched off and we emit ``BEGIN`` ourselves:
``BEGIN IMMEDIATE`` for write sessions (taking the write lock up front, waiting for it
under the busy timeout), plain ``BEGIN`` for reads, which WAL never blocks.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: The newest migration's revision (a test checks it against Alembic's own head). A database
#: already at this revision is opened without importing Alembic (~0.1 s per CLI call).
HEAD_REVISION = "0012_drift"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def is_sqlite(url: str) -> bool:
    """True when the URL names a SQLite database."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str) -> Engine:
    """Create an engine with the pragmas and transaction handling described above."""
    if is_sqlite(url):
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        )
        _configure_sqlite(engine)
        return engine
    engine = create_engine(url, pool_size=10, max_overflow=20, pool_recycle=POOL_RECYCLE_S)
    _ping_when_idle(engine)
    return engine


#: A pooled PostgreSQL connection idle this long is pinged at checkout; one used more
#: recently is not (``pool_pre_ping`` pinged every checkout: a round trip on every one of
#: a request's statements). A dead one found by a request is replaced and the request
#: run once more (``StoreBase.one_connection``).
PING_AFTER_IDLE_S = 10.0
#: A PostgreSQL connection is replaced after this long, whatever it did.
POOL_RECYCLE_S = 1800


def _ping_when_idle(engine: Engine) -> None:
    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_conn: Any, record: Any) -> None:
        record.info["checked_in"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("checked_in")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        try:
            with dbapi_conn.cursor() as cur:
                cur.execute("SELECT 1")
            dbapi_conn.rollback()
        except Exception as exc:  # the pool opens a new connection instead
            raise DisconnectionError(str(exc)) from exc


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")


def alembic_config(url: str) -> Config:
    """An Alembic config pointing at our migrations and the given database."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest migration (creates every table on a new database)."""
    if current_revision(engine) == HEAD_REVISION:
        return
    from alembic import command

    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def current_revision(engine: Engine) -> str | None:
    """The revision stamped in the database, or None (new database, no version table)."""
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:
        return None
