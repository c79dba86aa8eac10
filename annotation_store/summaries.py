"""Project listings with counts: one SQL query, run by the Store or, for a quick answer, by
the standard library's sqlite3 driver.

``workbench projects`` on the default SQLite database is answered without importing
SQLAlchemy (which alone takes most of a second on a small machine): the file is opened
read-only and the same query runs on the driver. A database that is not there yet, not
SQLite, or not readable that way goes through the Store, which also migrates it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from annotation_store.records import ProjectSummary

#: Items, people who labelled, submitted and draft labels, evaluator results per project.
SUMMARY_SQL = """
SELECT p.name, p.kind,
  (SELECT COUNT(*) FROM items i WHERE i.project_id = p.id),
  (SELECT COUNT(DISTINCT a.annotator_id) FROM annotations a WHERE a.project_id = p.id),
  (SELECT COUNT(*) FROM annotations a WHERE a.project_id = p.id AND a.status = 'submitted'),
  (SELECT COUNT(*) FROM annotations a WHERE a.project_id = p.id AND a.status = 'draft'),
  (SELECT COUNT(r.id) FROM evaluator_results r JOIN evaluator_runs er ON r.run_id = er.id
     WHERE er.project_id = p.id)
FROM projects p
ORDER BY p.name
"""


def summaries(rows: Iterable[tuple[Any, ...]]) -> list[ProjectSummary]:
    """Rows of :data:`SUMMARY_SQL` as records."""
    return [ProjectSummary(str(r[0]), str(r[1]), *(int(n) for n in r[2:7])) for r in rows]


def sqlite_path(url: str) -> Path | None:
    """The file of a plain ``sqlite:///PATH`` URL (None for anything else)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or "?" in url:
        return None
    path = url[len(prefix) :]
    return Path(path) if path and path != ":memory:" else None


def quick_summaries(url: str) -> list[ProjectSummary] | None:
    """The listing read straight from an existing SQLite file, or None to use the Store."""
    path = sqlite_path(url)
    if path is None or not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return None
    try:
        if conn.execute("SELECT version_num FROM alembic_version").fetchone() is None:
            return None
        return summaries(conn.execute(SUMMARY_SQL))
    except sqlite3.Error:  # no schema yet, or one this query does not fit: the Store decides
        return None
    finally:
        conn.close()
