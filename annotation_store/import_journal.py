"""The journal of a label import on SQLite: how the next start takes back an import that
a ``kill -9`` (or a power cut) stopped between its short write transactions.

On SQLite a large label import writes in chunks of its own transactions, so that label
saves never wait for the whole import (:mod:`annotation_store.label_import`). Before the
first write it leaves a small JSON file beside the database (project, source, the time
stamp its rows carry) and holds an exclusive ``flock`` on it; the file goes when the
import has finished (or has undone a failure itself). A journal nobody holds locked
belongs to a process that died mid-import: :func:`recover` (run when a store opens, and
by a store that stays open before each data-version read)
takes its rows back with :func:`~annotation_store.label_import.undo_import` and says so
in one line. An import is therefore all or nothing, even when killed: a live import is
never touched (its lock is held), and readers may see its rows only while it runs.

PostgreSQL needs none of this: there the import is one transaction, which the server
rolls back when the importing connection dies. Nor does an in-memory SQLite database
(nothing outlives the process) or a system without ``fcntl`` (Windows: imports behave
as before, undone on failure, not after a kill).
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from annotation_store.store_base import StoreBase as Store

SUFFIX = ".label-import"


def _database_file(store: Store) -> Path | None:
    """The SQLite file of a store, or None (PostgreSQL, in memory, no fcntl)."""
    if not store.is_sqlite or fcntl is None:
        return None
    from sqlalchemy.engine import make_url

    name = make_url(store.url).database
    return Path(name) if name and name != ":memory:" else None


class Journal:
    """One running import's journal (its file is locked while the import runs)."""

    def __init__(self, path: Path | None, fd: int | None) -> None:
        self.path, self.fd = path, fd

    @classmethod
    def begin(cls, store: Store, project_id: int, source: str, now: datetime) -> Journal:
        """Write and lock the journal of an import about to write (no-op off SQLite)."""
        db = _database_file(store)
        if db is None:
            return cls(None, None)
        token = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        draft = db.with_name(f"{db.name}{SUFFIX}-{token}.tmp")
        fd = os.open(draft, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        body = {"project_id": project_id, "source": source, "stamp": now.isoformat()}
        os.write(fd, json.dumps(body).encode())
        os.fsync(fd)
        path = draft.with_suffix(".json")
        os.rename(draft, path)  # under its final name only once it is whole and locked
        return cls(path, fd)

    def finish(self) -> None:
        """The import is done or undone: remove the journal, then let go of its lock."""
        if self.path is not None and self.fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self.fd)
            self.path = self.fd = None

    @staticmethod
    def recover(store: Store) -> list[str]:
        """Take back the label imports of dead processes; one line per import taken back."""
        db = _database_file(store)
        if db is None:
            return []
        lines = []
        for path in sorted(db.parent.glob(f"{db.name}{SUFFIX}-*.json")):
            try:
                fd = os.open(path, os.O_RDWR)
            except FileNotFoundError:  # finished meanwhile
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # its import is still running
                    continue
                if not path.exists() or os.stat(path).st_ino != os.fstat(fd).st_ino:
                    continue  # finished (and removed) just before the lock was taken
                try:
                    entry = json.loads(os.read(fd, 1 << 16))
                    lines.append(_take_back(store, entry))
                except (ValueError, KeyError, TypeError):
                    lines.append(f"an unreadable label import journal was left alone: {path}")
                    continue
                path.unlink()
                logging.getLogger(__name__).warning(lines[-1])
            finally:
                os.close(fd)
        return lines


def _take_back(store: Store, entry: dict[str, object]) -> str:
    from sqlalchemy import select

    from annotation_store.label_import import undo_import
    from annotation_store.models import Project

    project_id, source = int(str(entry["project_id"])), str(entry["source"])
    stamp = datetime.fromisoformat(str(entry["stamp"]))
    with store.write() as s:
        project = s.scalar(select(Project.name).where(Project.id == project_id))
        count = undo_import(s, project_id, source, stamp)
    return (
        f"a label import into {project!r} ({source}, started "
        f"{stamp:%Y-%m-%d %H:%M:%S} UTC) was stopped before it finished; the "
        f"{count:,} labels it had written were taken back, so none of that import is in "
        "the database: import the file again"
    )
