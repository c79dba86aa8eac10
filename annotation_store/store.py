"""The Store: the only door to the database. Views, the CLI and jobs all go through it.

Sessions are short: ``read()`` for queries, ``write()`` for one atomic change (on SQLite
it takes the write lock up front). Never hold a session across an LLM call.
"""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from annotation_store import db
from annotation_store.exclusions import ExclusionsMixin
from annotation_store.store_jobs import JobsMixin
from annotation_store.store_judges import JudgesMixin
from annotation_store.store_kinds import KindsMixin
from annotation_store.store_labels import LabelsMixin
from annotation_store.store_projects import ProjectsMixin
from annotation_store.store_results import ResultsMixin
from annotation_store.store_studies import StudiesMixin
from common.config import database_url


class Store(
    ProjectsMixin,
    LabelsMixin,
    ResultsMixin,
    JobsMixin,
    ExclusionsMixin,
    JudgesMixin,
    KindsMixin,
    StudiesMixin,
):
    """Projects, items, annotators, labels, evaluator results, caches, jobs, exclusions,
    judges, declared kinds and a study's checks."""

    def __init__(self, url: str | None = None, *, migrate: bool = True) -> None:
        self.url = database_url(url)
        self.engine: Engine = db.make_engine(self.url)
        self.is_sqlite = db.is_sqlite(self.url)
        if migrate:
            db.upgrade(self.engine)
        # Sessions (and with them the ORM) are made on first use: see StoreBase.read.
        self._write_bind = (
            self.engine.execution_options(sqlite_begin="IMMEDIATE")
            if self.is_sqlite
            else self.engine
        )
        self._statement_bind = (
            self.engine
            if self.is_sqlite
            else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        # SQLite has one writer at a time. Threads of this process (the sessions of one app
        # server) queue for it here and wake as soon as it is free; left to SQLite's busy
        # handler they would sleep in steps of up to 100 ms, which made the slowest label
        # saves of 50 concurrent annotators wait seconds. Other processes still meet the
        # busy timeout. Re-entrant, so a nested write in one thread behaves as before.
        self._write_turn = threading.RLock() if self.is_sqlite else None
        self._init_declared_kinds()
        #: One line per label import a killed process left half-written, undone now.
        self.recovered_imports = self.recover_imports() if migrate else []

    def close(self) -> None:
        """Release every pooled connection."""
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Store({self.engine.url.render_as_string(hide_password=True)!r})"


def open_store(url: str | None = None) -> Store:
    """Open (and migrate) the store at ``url``, ``WORKBENCH_DB_URL`` or the SQLite default."""
    return Store(url)
