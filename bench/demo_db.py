"""A fresh SQLite database with the demo projects, for the browser benchmarks."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from annotation_store import Store
from demo.loading import load_demo


@contextmanager
def demo_database() -> Iterator[tuple[str, Path]]:
    """(database URL, its folder) of a temporary SQLite file holding every demo project,
    removed when the block ends."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'workbench.db'}"
        store = Store(url)
        load_demo(store)
        store.close()
        yield url, Path(tmp)
