"""Benchmark: importing 100,000 items into SQLite while an annotator keeps saving labels.

Writes a CSV of ``--rows`` items (binary kind), starts a second process that saves a label
every 20 ms on another project of the same database (as the app would for an annotator),
and imports the file through :func:`interop.importing.import_items`. Prints the
import's rows/s, the time spent reading and validating (no lock), the longest write
transaction (how long the SQLite write lock was held), and the label saves' latency
(p50 / p95 / max) and failures during the import. Then times a re-import of the same
file (nothing changes). Wall times on a shared machine are noisy: run it more than once.

    .venv/bin/python bench/import_items.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation_store import Store
from interop.importing import import_items

ROOT = Path(__file__).resolve().parents[1]


class TimedStore(Store):
    """A store that records how long each write transaction (the write lock) lasts."""

    writes: list[float]

    @contextmanager
    def write(self) -> Iterator:  # type: ignore[override]
        start = time.perf_counter()
        try:
            with super().write() as session:
                yield session
        finally:
            self.writes.append(time.perf_counter() - start)

    @contextmanager
    def _write_lock(self, conn: Any) -> Iterator[None]:  # the items import's write
        start = time.perf_counter()
        try:
            with super()._write_lock(conn):
                yield
        finally:
            self.writes.append(time.perf_counter() - start)


def saver(url: str, stop: Path, every_s: float = 0.02) -> None:
    """Save labels until ``stop`` exists; print latencies (s) and failures as JSON."""
    store = Store(url)
    latencies, failures, n = [], [], 0
    while not stop.exists():
        start = time.perf_counter()
        try:
            store.save_label("work", "w", "ann", "label", n % 2, status="draft")
            latencies.append(time.perf_counter() - start)
        except Exception as exc:  # what an annotator would see
            failures.append(f"{type(exc).__name__}: {exc}"[:120])
        n += 1
        time.sleep(every_s)
    print(json.dumps({"latencies": latencies, "failures": failures}))


def start_saver(script: str, url: str, stop: Path) -> subprocess.Popen[str]:
    """``script --saver URL STOP`` in another process (its :func:`saver`)."""
    return subprocess.Popen(
        [sys.executable, script, "--saver", url, str(stop)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run(rows: int) -> None:
    """Run the benchmark described above and print its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        store = TimedStore(url)
        store.writes = []
        store.create_project("big", "binary")
        store.create_project("work", "binary")
        store.upsert_items("work", [{"item_id": "w", "fields": {"text": "t"}}])
        store.ensure_annotator("ann")
        path = Path(tmp) / "items.csv"
        with path.open("w", encoding="utf-8") as fh:
            fh.write("item_id,text,source\n")
            fh.writelines(f"i{i},the text of item number {i},bench\n" for i in range(rows))
        stop = Path(tmp) / "stop"
        child = start_saver(__file__, url, stop)
        time.sleep(1.0)  # the saver is running
        store.writes.clear()
        start = time.perf_counter()
        report = import_items(store, "big", path)
        total = time.perf_counter() - start
        lock = max(store.writes)
        time.sleep(0.5)
        stop.touch()
        result = json.loads(child.communicate(timeout=120)[0])
        store.writes.clear()
        start = time.perf_counter()
        again = import_items(store, "big", path)
        total_again = time.perf_counter() - start
        lat = result["latencies"]
        print(f"import of {rows:,} items: {report.summary('items')}")
        print(f"  total {total:.2f} s = {rows / total:,.0f} rows/s")
        print(f"  read + validate + plan, no lock: {total - lock:.2f} s")
        print(f"  write lock held (longest write transaction): {lock:.2f} s")
        print(
            f"  label saves meanwhile (another process): {len(lat)} ok, "
            f"{len(result['failures'])} failed; latency p50 {_pct(lat, 0.5) * 1000:.0f} ms, "
            f"p95 {_pct(lat, 0.95) * 1000:.0f} ms, max {max(lat, default=float('nan')) * 1000:.0f} ms"
        )
        for failure in result["failures"][:3]:
            print(f"    {failure}")
        print(
            f"re-import (unchanged): {again.summary('items')} in {total_again:.2f} s, "
            f"write lock {max(store.writes):.3f} s"
        )
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--saver", nargs=2, metavar=("URL", "STOP_FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.saver:
        saver(args.saver[0], Path(args.saver[1]))
    else:
        run(args.rows)


if __name__ == "__main__":
    main()
