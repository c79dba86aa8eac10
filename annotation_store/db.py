"""Engine creation and schema migration for SQLite (default) and PostgreSQL.

SQLite gets WAL, a busy timeout and foreign keys on every connection. Python's sqlite3
driver opens transactions lazily, which lets two writers deadlock on the lock upgrade;
so the driver's own transaction handling is switched off and we emit ``BEGIN`` ourselves:
``BEGIN IMMEDIATE`` for write sessions (taking the write lock up front, waiting for it
under the busy timeout), plain ``BEGIN`` for reads, which WAL never blocks.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

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
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


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
