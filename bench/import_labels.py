"""Benchmark: importing 300,000 labels into SQLite while an annotator keeps saving labels.

With ``--postgresql`` the same on a scratch PostgreSQL database, where the import is one
transaction (all-or-nothing even when killed) and the saver labels another project.

Makes a binary project of ``--items`` items, builds ``--labels`` label rows over them
(three annotators per item), starts a second process that saves a label every 50 ms on
another project of the same database (as the app does for an annotator), and imports
the rows with :meth:`Store.import_labels`. Prints the import's time, the longest write
transaction (how long the SQLite write lock was held at once), and the saves' waits
(p50 / p95 / worst) and failures during the import. The goal: no save waits over 1 s.
Wall times on a shared machine are noisy: run it more than once, under the heavy lock.

    flock /tmp/wb-heavy.lock .venv/bin/python bench/import_labels.py [--labels 300000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.import_items import TimedStore, _pct, saver, start_saver
from tests.support.pg import scratch_database


def run(n_labels: int, n_items: int, postgresql: bool = False) -> None:
    """Run the benchmark described above and print its figures."""
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        if postgresql:  # a scratch database, dropped afterwards
            admin = os.environ.get(
                "WORKBENCH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
            )
            url = stack.enter_context(scratch_database(admin, prefix="wb_bench"))
        store = TimedStore(url)
        store.writes = []
        store.create_project("big", "binary", {"k": 3})
        store.upsert_items(
            "big", [{"item_id": f"i{i}", "fields": {"text": f"item {i}"}} for i in range(n_items)]
        )
        store.create_project("work", "binary")
        store.upsert_items("work", [{"item_id": "w", "fields": {"text": "t"}}])
        store.ensure_annotator("ann")
        per_item = -(-n_labels // n_items)
        rows = [
            {
                "item_id": f"i{n // per_item}",
                "annotator": f"rater{n % per_item}",
                "field": "label",
                "value": n % 2,
                "status": "submitted",
            }
            for n in range(n_labels)
        ]
        stop = Path(tmp) / "stop"
        child = start_saver(__file__, url, stop)
        time.sleep(1.5)  # the saver is running
        store.writes.clear()
        start = time.perf_counter()
        report = store.import_labels("big", rows)
        total = time.perf_counter() - start
        lock = max(store.writes)
        slow = sorted(range(len(store.writes)), key=store.writes.__getitem__)[-5:]
        print("slowest writes (index, s):", [(i, round(store.writes[i], 2)) for i in slow])
        stop.touch()
        result = json.loads(child.communicate(timeout=120)[0])
        lat = result["latencies"]
        print(f"import of {n_labels:,} labels: {report.summary('labels')}")
        print(f"  total {total:.2f} s = {n_labels / total:,.0f} labels/s")
        what = "the import's one transaction" if postgresql else "write lock held at once"
        print(f"  longest write transaction ({what}): {lock:.2f} s")
        print(
            f"  label saves meanwhile (another process, every 50 ms): {len(lat)} ok, "
            f"{len(result['failures'])} failed; wait p50 {_pct(lat, 0.5) * 1000:.0f} ms, "
            f"p95 {_pct(lat, 0.95) * 1000:.0f} ms, "
            f"worst {max(lat, default=float('nan')) * 1000:.0f} ms"
        )
        for failure in result["failures"][:3]:
            print(f"    {failure}")
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=300_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument(
        "--postgresql", action="store_true", help="on PostgreSQL (WORKBENCH_TEST_PG_URL)"
    )
    parser.add_argument("--saver", nargs=2, metavar=("URL", "STOP_FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.saver:
        saver(args.saver[0], Path(args.saver[1]), every_s=0.05)
    else:
        run(args.labels, args.items, args.postgresql)


if __name__ == "__main__":
    main()
