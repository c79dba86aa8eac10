"""Throughput of an LLM run against the scripted server (in its own process).

Three figures, through the product path ``jobs.runner.run_evaluator`` (what ``cli.py
evaluate`` and the app's jobs call) with intent-resolution items and 200 ms per call:

1. concurrency 16, 2,000 items: target >= 95 % of the ideal call rate (16 / 0.2 s);
2. concurrency 64, 5,000 other items: target >= 90 % of 64 / 0.2 s;
3. a re-run of 10,000 items that are all in the persistent (SQLite) cache: < 2 s, 0 calls.

Each prints items/s, % of ideal (runs 1-2) and the CPU time of this process per item (the
server's CPU is not counted). ``--quick`` runs 400 / 1,000 / 2,000 items instead.
Wall-clock figures are only meaningful on an otherwise idle machine.

    .venv/bin/python bench/llm_throughput.py [--quick] [--latency 0.2] [--same-process]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation_store import Store
from evaluators.base import EvalContext
from evaluators.llm.client import LLMClient
from evaluators.llm.config import LLMConfig
from evaluators.registry import get_evaluator_class
from jobs.runner import RunProgress, run_evaluator
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM

PROJECT = "bench"


@dataclass
class Figure:
    """One timed run."""

    items: int
    calls: int
    wall_s: float
    cpu_s: float
    progress: RunProgress

    @property
    def items_per_s(self) -> float:
        """Items finished per second of wall time."""
        return self.items / self.wall_s

    @property
    def cpu_ms_per_item(self) -> float:
        """CPU time of this process (all threads) per item, in ms."""
        return 1000 * self.cpu_s / max(1, self.items)


def run(
    store: Store,
    server: Any,
    concurrency: int,
    item_ids: list[str],
    batch_size: int | None = None,
) -> Figure:
    """One run_evaluator call over ``item_ids``, timed (wall and CPU) and counted."""
    config = LLMConfig(
        model=server.model,
        base_url=server.base_url,
        api_key="bench",
        concurrency=concurrency,
        max_retries=0,
    )
    # Warm-up outside the timed region: the HTTP layer and the evaluator's module are
    # imported on first use, once per process, which is not throughput
    # (bench/whole_process.py times whole processes, imports included).
    import evaluators.llm.streams  # noqa: F401

    get_evaluator_class("intent_resolution")
    ctx = EvalContext(llm=LLMClient(config, cache=store), cache=store, pages=store)
    calls = server.calls
    start, cpu = time.perf_counter(), time.process_time()
    progress = run_evaluator(
        store, PROJECT, "intent_resolution", ctx=ctx, item_ids=item_ids, batch_size=batch_size
    )
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Figure(len(item_ids), server.calls - calls, wall, cpu, progress)


def report_cold(title: str, fig: Figure, concurrency: int, latency: float, target: float) -> None:
    """Print a run that calls the model: rate against the ideal concurrency / latency."""
    ideal = concurrency / latency
    rate = fig.calls / fig.wall_s
    share = 100 * rate / ideal
    ok = fig.progress.done - fig.progress.failed
    print(
        f"{title}: {fig.items} items, {fig.calls} calls, {ok} ok, in {fig.wall_s:.2f} s\n"
        f"  {fig.items_per_s:.1f} items/s; {rate:.1f} calls/s of an ideal {ideal:.1f} "
        f"({concurrency} / {latency:g} s) = {share:.1f} % (target >= {100 * target:.0f} %: "
        f"{'PASS' if share >= 100 * target else 'FAIL'}); CPU {fig.cpu_ms_per_item:.2f} ms/item"
    )


class ChildServer:
    """The scripted server in a child process, as a real endpoint would be.

    In the bench's own process its HTTP threads would compete with the client for the GIL,
    which measures the test server rather than the client layer. Calls are counted in
    shared memory.
    """

    def __init__(self, latency: float) -> None:
        ctx = multiprocessing.get_context("fork")
        self._calls = ctx.Value("i", 0)
        self._stop = ctx.Event()
        ready: Any = ctx.Queue()
        self._proc = ctx.Process(target=self._serve, args=(latency, ready), daemon=True)
        self._proc.start()
        self.base_url, self.model = ready.get(timeout=30)

    def _serve(self, latency: float, ready: Any) -> None:
        def handler(req: dict) -> Reply:
            with self._calls.get_lock():
                self._calls.value += 1
            return Reply(content=json.dumps(INTENT_RESOLUTION_REPLY), delay_s=latency)

        with ScriptedLLM() as server:
            server.handler = handler
            ready.put((server.base_url, server.model))
            self._stop.wait()

    @property
    def calls(self) -> int:
        """HTTP calls answered so far."""
        return int(self._calls.value)

    def close(self) -> None:
        """Stop the child."""
        self._stop.set()
        self._proc.join(timeout=10)


@contextlib.contextmanager
def scripted_server(latency: float, same_process: bool) -> Iterator[Any]:
    """The scripted endpoint: in a child process (default) or in this one."""
    if same_process:
        with ScriptedLLM() as server:
            server.handler = lambda req: Reply(
                content=json.dumps(INTENT_RESOLUTION_REPLY), delay_s=latency
            )
            yield server
        return
    server = ChildServer(latency)
    try:
        yield server
    finally:
        server.close()


def item_rows(n: int) -> list[dict[str, Any]]:
    """``n`` distinct intent-resolution items."""
    return [
        {"item_id": f"i{i}", "fields": {"query": f"question {i}", "response": f"answer {i}"}}
        for i in range(n)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="400 / 1,000 / 2,000 items")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--batch-size", type=int, default=None, help="default: the judge's")
    parser.add_argument(
        "--same-process",
        action="store_true",
        help="run the scripted server in this process (its threads then share the GIL)",
    )
    args = parser.parse_args()
    n16, n64, n_cached = (400, 1_000, 2_000) if args.quick else (2_000, 5_000, 10_000)
    where = "this process" if args.same_process else "a child process"
    print(f"scripted server in {where}, {args.latency:g} s per call")
    with (
        tempfile.TemporaryDirectory() as tmp,
        scripted_server(args.latency, args.same_process) as server,
    ):
        store = Store(f"sqlite:///{Path(tmp) / 'bench.db'}")
        store.create_project(PROJECT, "intent_resolution")
        store.upsert_items(PROJECT, item_rows(n_cached))
        ids = [f"i{i}" for i in range(n_cached)]
        fig = run(store, server, 16, ids[:n16], args.batch_size)
        report_cold(f"concurrency 16 x {n16:,}", fig, 16, args.latency, 0.95)
        fig = run(store, server, 64, ids[n16 : n16 + n64], args.batch_size)
        report_cold(f"concurrency 64 x {n64:,}", fig, 64, args.latency, 0.90)
        rest = ids[n16 + n64 :]
        if rest:  # fill the cache for the other items (not a reported figure)
            run(store, server, 64, rest, args.batch_size)
        fig = run(store, server, 64, ids, args.batch_size)
        print(
            f"cached re-run x {n_cached:,}: {fig.wall_s:.2f} s, {fig.calls} calls, "
            f"{fig.progress.cached} of {fig.progress.done} results from cache (target < 2 s, "
            f"0 calls: {'PASS' if fig.wall_s < 2 and fig.calls == 0 else 'FAIL'})\n"
            f"  {fig.items_per_s:.0f} items/s; CPU {fig.cpu_ms_per_item:.3f} ms/item"
        )
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
