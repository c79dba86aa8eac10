"""Throughput of the LLM client layer against the scripted server.

500 intent-resolution items, 200 ms simulated latency per call, concurrency 16. The
ideal rate is 16 / 0.2 s = 80 calls/s; the target is at least 85 % of it. Then the same
run again from the persistent (SQLite) cache, which must make no call (target < 2 s).

Runs go through the product path, ``jobs.runner.run_evaluator`` (what ``cli.py evaluate``
and the app's jobs call): items read from a project in the store, evaluated in batches of
--batch-size (the CLI's default 16; the app's default is 4), results stored per batch.

    .venv/bin/python bench/llm_throughput.py [--items 500] [--latency 0.2] [--concurrency 16]
        [--batch-size 16]
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import openai

from annotation_store import Store
from evaluators.base import EvalContext
from evaluators.llm.client import LLMClient
from evaluators.llm.config import LLMConfig
from evaluators.registry import get_evaluator_class
from jobs.runner import RunProgress, run_evaluator
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM

PROJECT = "bench"


def run(
    store: Store, server: ScriptedLLM, concurrency: int, batch_size: int
) -> tuple[float, RunProgress]:
    config = LLMConfig(
        model=server.model,
        base_url=server.base_url,
        api_key="bench",
        concurrency=concurrency,
        max_retries=0,
    )
    # Warm-up outside the timed region: the first openai client and the evaluator
    # registry's discovery (it imports every builtin evaluator) pay lazy imports (~0.3 s
    # together), once per process, which is not throughput.
    openai.AsyncOpenAI(base_url=server.base_url, api_key="bench")
    get_evaluator_class("intent_resolution")
    ctx = EvalContext(llm=LLMClient(config, cache=store), cache=store, pages=store)
    start = time.perf_counter()
    progress = run_evaluator(store, PROJECT, "intent_resolution", ctx=ctx, batch_size=batch_size)
    return time.perf_counter() - start, progress


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument(
        "--same-process",
        action="store_true",
        help="run the scripted server in this process (its threads then share the GIL)",
    )
    args = parser.parse_args()
    where = "this process" if args.same_process else "a child process"
    print(f"scripted server in {where}, {args.latency:g} s per call")
    with (
        tempfile.TemporaryDirectory() as tmp,
        scripted_server(args.latency, args.same_process) as server,
    ):
        store = Store(f"sqlite:///{Path(tmp) / 'bench.db'}")
        store.create_project(PROJECT, "intent_resolution")
        store.upsert_items(
            PROJECT,
            [
                {
                    "item_id": f"i{i}",
                    "fields": {"query": f"question {i}", "response": f"answer {i}"},
                }
                for i in range(args.items)
            ],
        )
        elapsed, progress = run(store, server, args.concurrency, args.batch_size)
        calls = server.calls
        rate = calls / elapsed
        ideal = args.concurrency / args.latency
        ok = progress.done - progress.failed
        print(
            f"cold run (batches of {args.batch_size}): {args.items} items, {calls} calls in "
            f"{elapsed:.2f} s, {ok} ok"
        )
        print(
            f"  achieved {rate:.1f} calls/s; ideal {ideal:.1f} calls/s "
            f"({args.concurrency} / {args.latency:g} s); {100 * rate / ideal:.1f} % of ideal "
            f"(target >= 85 %): {'PASS' if rate >= 0.85 * ideal else 'FAIL'}"
        )
        cached_elapsed, cached = run(store, server, args.concurrency, args.batch_size)
        extra = server.calls - calls
        print(
            f"cached re-run: {cached_elapsed:.2f} s, {extra} HTTP calls, "
            f"{cached.cached} of {cached.done} results from cache "
            f"(target < 2 s, 0 calls): "
            f"{'PASS' if cached_elapsed < 2 and extra == 0 else 'FAIL'}"
        )
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
