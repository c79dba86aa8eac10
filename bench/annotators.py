"""Benchmark: a crowd labelling one big project at once through the fast lane's HTTP routes.

A server process serves the Annotate page's fast-lane routes (``ui.annotation.
fast_routes``, what ``serve.py`` serves, with its middleware) over uvicorn on a local
port. For every annotator it does what the Annotate page does when it opens: claims the
first item (``assignments.claim_next``), opens a lane (``fast_lane.LANES.open``) and
hands the page the item's payload. N client threads (one per annotator, in this
process) then label for ``--seconds`` as the page's script does: fetch the next item
while the current one is labelled (``GET /api/annotate/next?after=REF``), post the
choice the moment it is given (``POST /api/annotate/label`` with ``"submit": false``:
the *save*), post the submit (the *submit*), with a random pause of mean ``--think``
seconds before each post. Afterwards the database is checked against what the
clients were told:

- **lost**: submits answered 200 whose item is not submitted by that annotator;
- **duplicated**: an item handed to one annotator twice (a reference seen twice by one
  client, or two claims of one (item, annotator));
- **over_k**: items with more than k submitted annotators (k = 3).

With ``--json`` it prints one JSON object per backend and crowd size: backend,
annotators, items, save_p95_ms, submit_p95_ms, next_p95_ms, items_per_s, lost,
duplicated, over_k (and more: p50s, counts, errors, the server process's CPU seconds
while the crowd labelled and per submitted item, the load average). Targets (issue
#39) on a quiet 2-core machine: at 50 annotators p95 save < 100 ms, submit < 150 ms,
next < 300 ms; at 200 annotators items per second at least that of 50; lost =
duplicated = over_k = 0. SQLite runs on a fresh file; PostgreSQL on a fresh database
beside ``WORKBENCH_TEST_PG_URL`` (default the local ``test`` database's server),
dropped afterwards. Figures depend on the machine's load: run it more than once.

    .venv/bin/python bench/annotators.py --annotators 50 200 --items 20000 \\
        --backends sqlite postgresql --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

K = 3
PROJECT = "bench"
PG_ADMIN_URL = os.environ.get(
    "WORKBENCH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


# -- the server process -----------------------------------------------------------------
def _serve(url: str, names: list[str], port: int, conn: Any) -> None:
    """Open every annotator's lane as the Annotate page does, send the tokens and first
    payloads back through ``conn``, then serve the fast-lane routes until killed."""
    import uvicorn
    from starlette.applications import Starlette

    from annotation_store import Store
    from studies import assignments as asg
    from ui.annotation import fast_lane, fast_routes
    from ui.frame_guard import MIDDLEWARE

    store = Store(url)
    project = store.project(PROJECT)
    lanes = {}
    for name in names:
        user = store.annotator(name)
        item_id = asg.claim_next(store, PROJECT, name)
        token = fast_lane.LANES.open(store, PROJECT, user)
        payload = fast_lane.item_payload(store, project, user, item_id) if item_id else None
        lanes[name] = (token, payload)
    app = Starlette(routes=fast_routes.routes(), middleware=MIDDLEWARE)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    conn.send(lanes)
    server.run()


def _cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from ``/proc`` (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the clients ------------------------------------------------------------------------
@dataclass
class Tally:
    """What the clients did and how long each request took (seconds)."""

    saves: list[float] = field(default_factory=list)
    submits: list[float] = field(default_factory=list)
    nexts: list[float] = field(default_factory=list)
    submitted: list[tuple[str, str]] = field(default_factory=list)  # (annotator, ref)
    repeated: int = 0  # a reference handed to one client twice
    refused: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _timed(call: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    response = call(*args, **kwargs)
    return response, time.perf_counter() - start


def _annotator(
    base: str, name: str, token: str, first: dict[str, Any] | None, args: Any, t: Tally
) -> None:
    import httpx

    from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE
    from ui.session_cookie import GUARD_HEADER

    rng = random.Random(name)
    headers = {GUARD_HEADER: "1", LANE_HEADER: token}
    deadline = time.monotonic() + args.seconds
    item, seen = first, set()
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
        while item is not None and time.monotonic() < deadline:
            ref = item["ref"]
            if ref in seen:
                with t.lock:
                    t.repeated += 1
            seen.add(ref)
            nxt, next_s = _timed(client.get, NEXT_ROUTE, params={"after": ref})
            chosen = {target["key"]: rng.randint(0, 1) for target in item["targets"]}
            time.sleep(rng.uniform(0, 2 * args.think))
            body = {"item": ref, "chosen": chosen, "submit": False}
            saved, save_s = _timed(client.post, LABEL_ROUTE, json=body)
            time.sleep(rng.uniform(0, 2 * args.think))
            body = {"item": ref, "chosen": chosen, "seconds": 2.0}
            done, submit_s = _timed(client.post, LABEL_ROUTE, json=body)
            with t.lock:
                t.nexts.append(next_s)
                t.saves.append(save_s)
                t.submits.append(submit_s)
                for what, r in (("next", nxt), ("save", saved), ("submit", done)):
                    if r.status_code == 409:
                        t.refused += 1
                    elif r.status_code != 200:
                        t.errors.append(f"{what} {r.status_code}: {r.text[:120]}")
                if done.status_code == 200:
                    t.submitted.append((name, ref))
            item = nxt.json().get("item") if nxt.status_code == 200 else None


# -- checks and figures -----------------------------------------------------------------
def _check(url: str, t: Tally) -> dict[str, int]:
    """Compare what the clients were told with what the database holds."""
    from sqlalchemy import func, select

    from annotation_store import Store
    from annotation_store.models import Assignment
    from studies import assignments as asg

    store = Store(url)
    frame = store.annotations_frame(PROJECT)
    done = set(zip(frame["annotator"], frame["item_id"], strict=True))
    orders: dict[str, list[str]] = {}
    lost = 0
    for name, ref in t.submitted:
        order = orders.setdefault(name, asg.display_order(store, PROJECT, name))
        item_id = order[int(ref) - 1] if ref.isdigit() and int(ref) <= len(order) else None
        lost += (name, item_id) not in done
    with store.read() as s:
        pairs = s.execute(
            select(func.count())
            .select_from(Assignment)
            .group_by(Assignment.item_pk, Assignment.annotator_id)
            .having(func.count() > 1)
        ).all()
    per_item = frame.groupby("item_id")["annotator"].nunique()
    store.close()
    return {
        "submitted": len(t.submitted),
        "lost": lost,
        "duplicated": t.repeated + len(pairs),
        "over_k": int((per_item > K).sum()),
        "labels": len(frame),
    }


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)


@contextmanager
def _database(backend: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.db'}"
        return
    from tests.support.pg import scratch_database

    with scratch_database(PG_ADMIN_URL, prefix="wb_bench") as url:
        yield url


def _setup(url: str, n_items: int, names: list[str]) -> None:
    from annotation_store import Store

    store = Store(url)
    store.create_project(PROJECT, "binary", {"k": K})
    rows = [{"item_id": f"i{i:05d}", "fields": {"text": f"text {i}"}} for i in range(n_items)]
    for start in range(0, n_items, 5000):
        store.upsert_items(PROJECT, rows[start : start + 5000])
    for name in names:
        store.ensure_annotator(name)
    store.close()


def run_one(backend: str, n: int, args: Any) -> dict[str, Any]:
    """One backend x one crowd size: the figures as one JSON-ready object."""
    names = [f"w{j:03d}" for j in range(n)]
    with _database(backend) as url:
        _setup(url, args.items, names)
        port = _free_port()
        ours, theirs = mp.get_context("spawn").Pipe()
        server = mp.get_context("spawn").Process(
            target=_serve, args=(url, names, port, theirs), daemon=True
        )
        server.start()
        try:
            lanes = ours.recv()
            time.sleep(0.5)  # uvicorn binding its port
            tally = Tally()
            base = f"http://127.0.0.1:{port}"
            threads = [
                threading.Thread(
                    target=_annotator, args=(base, name, *lanes[name], args, tally), daemon=True
                )
                for name in names
            ]
            started = time.perf_counter()
            cpu_before = _cpu_seconds(server.pid)
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            wall = time.perf_counter() - started
            cpu_after = _cpu_seconds(server.pid)
        finally:
            server.terminate()
            server.join(10)
        figures = _check(url, tally)
    server_cpu = (
        round(cpu_after - cpu_before, 2)
        if cpu_before is not None and cpu_after is not None
        else None
    )
    load = os.getloadavg()
    return {
        "backend": backend,
        "annotators": n,
        "items": args.items,
        "save_p95_ms": _pct(tally.saves, 0.95),
        "submit_p95_ms": _pct(tally.submits, 0.95),
        "next_p95_ms": _pct(tally.nexts, 0.95),
        "items_per_s": round(figures["submitted"] / wall, 2),
        "lost": figures["lost"],
        "duplicated": figures["duplicated"],
        "over_k": figures["over_k"],
        "save_p50_ms": _pct(tally.saves, 0.5),
        "submit_p50_ms": _pct(tally.submits, 0.5),
        "next_p50_ms": _pct(tally.nexts, 0.5),
        "submitted": figures["submitted"],
        "refused": tally.refused,
        "errors": len(tally.errors),
        "first_error": tally.errors[0] if tally.errors else None,
        "seconds": round(wall, 1),
        # the server process's CPU while the crowd labelled, per submitted item
        "server_cpu_s": server_cpu,
        "server_cpu_per_item_ms": (
            round(server_cpu / figures["submitted"] * 1000, 1)
            if server_cpu is not None and figures["submitted"]
            else None
        ),
        "think_s": args.think,
        "load_average": [round(x, 1) for x in load],
        "cpus": os.cpu_count(),
    }


def _line(r: dict[str, Any]) -> str:
    return (
        f"{r['backend']:<10} N={r['annotators']:<3} items {r['items']}  submitted "
        f"{r['submitted']:>5} ({r['items_per_s']}/s)  lost {r['lost']}  duplicated "
        f"{r['duplicated']}  over-k {r['over_k']}  errors {r['errors']}  | p50 / p95 ms: "
        f"save {r['save_p50_ms']} / {r['save_p95_ms']}  submit {r['submit_p50_ms']} / "
        f"{r['submit_p95_ms']}  next {r['next_p50_ms']} / {r['next_p95_ms']}  | load "
        f"{r['load_average'][0]}"
    )


def main() -> None:
    """Parse the arguments, run every backend x crowd size, print one line (or object)
    each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--annotators", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=60.0, help="how long the crowd labels")
    ap.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean pause before each post in s (1: an item every ~2 s per annotator, a "
        "fast crowd worker)",
    )
    ap.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"])
    ap.add_argument("--json", action="store_true", help="one JSON object per run")
    args = ap.parse_args()
    for backend in args.backends:
        for n in args.annotators:
            result = run_one(backend, n, args)
            print(json.dumps(result) if args.json else _line(result), flush=True)
            if result["first_error"] and not args.json:
                print("    first error: " + result["first_error"], flush=True)


if __name__ == "__main__":
    main()
