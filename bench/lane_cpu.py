"""Benchmark: the server's CPU and SQL statements per fast-lane request, in-process.

Builds a binary project of ``--items`` items (k = 3), opens ``--annotators`` lanes as
the Annotate page does, then labels ``--rounds`` items per annotator through the routes'
own handlers (``fast_routes._next`` / ``_label`` through ``fast_routes.serve``, as the
HTTP routes call them, without the HTTP): for each item the ``next`` (fetched ahead), the
*save* (``"submit": false``) and the *submit*. Prints per request kind the median CPU
time (this process: the Python server's share) and the statements run, and the
statements per labelled item. ``--profile FILE`` writes a cProfile of the whole loop.

    .venv/bin/python bench/lane_cpu.py --backend sqlite --items 20000
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PG_ADMIN_URL = os.environ.get(
    "WORKBENCH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@contextmanager
def _database(backend: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'lane.db'}"
        return
    from tests.support.pg import scratch_database

    with scratch_database(PG_ADMIN_URL, prefix="wb_lane") as url:
        yield url


def run(backend: str, n_items: int, n_people: int, rounds: int, profile: str | None) -> dict:
    """One backend: the figures as a JSON-ready object."""
    from sqlalchemy import event

    from annotation_store import Store
    from studies import assignments as asg
    from ui.annotation import fast_lane, fast_routes

    with _database(backend) as url:
        store = Store(url)
        store.create_project("bench", "binary", {"k": 3})
        rows = [{"item_id": f"i{i:05d}", "fields": {"text": f"text {i}"}} for i in range(n_items)]
        for start in range(0, n_items, 5000):
            store.upsert_items("bench", rows[start : start + 5000])
        project = store.project("bench")
        lanes = []
        for j in range(n_people):
            user = store.ensure_annotator(f"w{j:03d}")
            item_id = asg.claim_next(store, "bench", user.name)
            token = fast_lane.LANES.open(store, "bench", user)
            lanes.append([token, fast_lane.item_payload(store, project, user, item_id)])
        count = [0]

        def _count(*_: Any) -> None:
            count[0] += 1

        event.listen(store.engine, "before_cursor_execute", _count)
        cpu: dict[str, list[float]] = {"next": [], "save": [], "submit": []}
        sql: dict[str, list[int]] = {"next": [], "save": [], "submit": []}

        def timed(kind: str, work: Any, *args: Any) -> Any:
            c0, s0 = time.process_time(), count[0]
            out = fast_routes.serve(args[0], work, *args[1:])
            cpu[kind].append(time.process_time() - c0)
            sql[kind].append(count[0] - s0)
            return out

        prof = cProfile.Profile() if profile else None
        started = time.perf_counter()
        c_start = time.process_time()
        if prof:
            prof.enable()
        for _ in range(rounds):
            for lane in lanes:
                token, item = lane
                if item is None:
                    continue
                ref = item["ref"]
                nxt = timed("next", fast_routes._next, token, ref, [])
                chosen = {t["key"]: 1 for t in item["targets"]}
                timed(
                    "save",
                    fast_routes._label,
                    token,
                    {"item": ref, "chosen": chosen, "submit": False},
                )
                timed(
                    "submit",
                    fast_routes._label,
                    token,
                    {"item": ref, "chosen": chosen, "seconds": 2.0},
                )
                lane[1] = nxt["item"]
        if prof:
            prof.disable()
            prof.dump_stats(profile)
        wall = time.perf_counter() - started
        total_cpu = time.process_time() - c_start
        store.close()
    items = len(cpu["submit"])
    return {
        "backend": backend,
        "items": n_items,
        "annotators": n_people,
        "labelled": items,
        **{f"{k}_cpu_p50_ms": round(statistics.median(v) * 1000, 1) for k, v in cpu.items()},
        **{f"{k}_statements": round(statistics.mean(v), 1) for k, v in sql.items()},
        "statements_per_item": round(sum(sum(v) for v in sql.values()) / items, 1),
        "cpu_per_item_ms": round(total_cpu / items * 1000, 1),
        "wall_s": round(wall, 1),
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }


def main() -> None:
    """Parse the arguments and print one JSON object per backend."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", nargs="+", default=["sqlite"])
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--annotators", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--profile", help="write a cProfile of the labelling loop here")
    args = ap.parse_args()
    for backend in args.backend:
        print(json.dumps(run(backend, args.items, args.annotators, args.rounds, args.profile)))


if __name__ == "__main__":
    main()
