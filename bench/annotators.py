"""Benchmark: many annotators labelling one project at once, on SQLite and PostgreSQL.

N simulated annotators (threads sharing one Store, as the sessions of one app server
do) each loop: claim the next item (``assignments.claim_next``, what the Annotate page
calls), save its label the way the page's choice callback does (``Store.item_state`` then
``Store.save_label``), and submit (``assignments.submit``), with a short random pause
between actions (``--think``, a fast annotator). Afterwards the stored rows are
checked against what every annotator was told:

- **saved**: label saves that returned without error;
- **lost**: of those, labels not found in the database afterwards;
- **duplicated**: (item, annotator, field) keys stored more than once, plus items handed
  to the same annotator twice;
- **over-k**: items with more than k submitted annotators (k = 3);

and prints p50 / p95 / p99 latency of the save (what a click waits for), the claim and
the submit. Target (issue #11): p95 save < 50 ms at 50 annotators on both backends.
SQLite runs on a fresh file; PostgreSQL on a fresh database created beside
``WORKBENCH_TEST_PG_URL`` (default the local ``test`` database's server) and dropped
afterwards. Figures depend on the machine's load: run it more than once.

    .venv/bin/python bench/annotators.py [--quick] [--annotators 10 50 100] [--items-each 20]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation_store import Store
from annotation_store import assignments as asg
from annotation_store.assignments import AssignmentError
from tests.support.pg import scratch_database

K = 3
PG_ADMIN_URL = os.environ.get(
    "WORKBENCH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@dataclass
class Tally:
    """What the simulated annotators did and how long it took."""

    saves: list[float] = field(default_factory=list)
    claims: list[float] = field(default_factory=list)
    submits: list[float] = field(default_factory=list)
    saved: set[tuple[str, str]] = field(default_factory=set)  # (item, annotator)
    given: list[tuple[str, str]] = field(default_factory=list)  # claims handed out
    refused: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _annotator(store: Store, name: str, items_each: int, think_s: float, t: Tally) -> None:
    rng = random.Random(name)
    seen: set[str] = set()
    for _ in range(items_each):
        start = time.perf_counter()
        try:
            item_id = asg.claim_next(store, "bench", name)
        except Exception as exc:
            with t.lock:
                t.errors.append(f"claim: {exc}")
            return
        claim_s = time.perf_counter() - start
        if item_id is None:
            break
        time.sleep(rng.uniform(0, 2 * think_s))
        start = time.perf_counter()
        try:
            fresh = store.item_state("bench", item_id, name)  # as the choice callback does
            status = "submitted" if fresh["status"] == "submitted" else "draft"
            store.save_label("bench", item_id, name, "label", rng.randint(0, 1), status=status)
        except Exception as exc:
            with t.lock:
                t.errors.append(f"save: {exc}")
            continue
        save_s = time.perf_counter() - start
        time.sleep(rng.uniform(0, 2 * think_s))
        start = time.perf_counter()
        refused = False
        try:
            asg.submit(store, "bench", item_id, name, seconds=1.0)
        except AssignmentError:
            refused = True
        except Exception as exc:
            with t.lock:
                t.errors.append(f"submit: {exc}")
        submit_s = time.perf_counter() - start
        with t.lock:
            t.claims.append(claim_s)
            t.saves.append(save_s)
            t.submits.append(submit_s)
            t.saved.add((item_id, name))
            if item_id not in seen:
                t.given.append((item_id, name))
            t.refused += refused
        seen.add(item_id)
        if refused:
            break


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _check(store: Store, t: Tally) -> dict[str, int]:
    """Compare what the annotators were told with what the database holds."""
    frame = store.annotations_frame("bench", statuses=("draft", "submitted", "skipped"))
    stored = {(str(i), str(a)) for i, a in zip(frame["item_id"], frame["annotator"], strict=True)}
    keys = frame.groupby(["item_id", "annotator", "field"]).size()
    submitted = frame[frame["status"] == "submitted"].groupby("item_id")["annotator"].nunique()
    claims = {}
    for key in t.given:
        claims[key] = claims.get(key, 0) + 1
    return {
        "saved": len(t.saved),
        "lost": len(t.saved - stored),
        "duplicated": int((keys > 1).sum()) + sum(1 for n in claims.values() if n > 1),
        "over_k": int((submitted > K).sum()),
    }


@contextmanager
def _database(backend: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.db'}"
        return
    with scratch_database(PG_ADMIN_URL, prefix="wb_bench") as url:
        yield url


def run_one(backend: str, n: int, items_each: int, think_s: float) -> str:
    """One backend x one crowd size; returns the printed line."""
    with _database(backend) as url:
        store = Store(url)
        store.create_project("bench", "binary", {"k": K})
        n_items = n * items_each // K + n  # some slack: nobody runs out of items
        store.upsert_items(
            "bench",
            [{"item_id": f"i{i:05d}", "fields": {"text": f"text {i}"}} for i in range(n_items)],
        )
        names = [f"a{j:03d}" for j in range(n)]
        for name in names:
            store.ensure_annotator(name)
        tally = Tally()
        threads = [
            threading.Thread(target=_annotator, args=(store, name, items_each, think_s, tally))
            for name in names
        ]
        started = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - started
        figures = _check(store, tally)
        store.close()
    ok = "meets" if _pct(tally.saves, 0.95) < 50 else "misses"
    line = (
        f"{backend:<10} N={n:<3} saved {figures['saved']:>5}  lost {figures['lost']}  "
        f"duplicated {figures['duplicated']}  over-k {figures['over_k']}  "
        f"refused {tally.refused}  errors {len(tally.errors)}  | save ms p50 "
        f"{_pct(tally.saves, 0.5):.1f} p95 {_pct(tally.saves, 0.95):.1f} "
        f"p99 {_pct(tally.saves, 0.99):.1f} ({ok} p95 < 50)  | claim p95 "
        f"{_pct(tally.claims, 0.95):.1f}  submit p95 {_pct(tally.submits, 0.95):.1f}  "
        f"| {len(tally.saves) / wall:.0f} items/s"
    )
    if tally.errors:
        line += "\n    first error: " + tally.errors[0][:200]
    return line


def main() -> None:
    """Parse the arguments, run every backend x crowd size, print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="10 and 50 annotators, 4 items each")
    ap.add_argument("--annotators", type=int, nargs="+", default=[10, 50, 100])
    ap.add_argument("--items-each", type=int, default=20)
    ap.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean pause between actions in s (2: an item every ~4 s, a fast annotator; "
        "0.25 is a stress test far above human speed)",
    )
    ap.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"])
    args = ap.parse_args()
    if args.quick:
        args.annotators, args.items_each = [10, 50], 4
    for backend in args.backends:
        for n in args.annotators:
            print(run_one(backend, n, args.items_each, args.think), flush=True)
    load = os.getloadavg()
    print(
        f"think time {args.think} s; load average: {load[0]:.1f} / {load[1]:.1f} "
        f"({os.cpu_count()} CPUs); noisy figures"
    )


if __name__ == "__main__":
    main()
