"""Batch mode of an LLM run: the OpenAI Batch API instead of one call per request.

Each round evaluates the remaining items with a :class:`BatchSession` on the client: cache
hits are evaluated at once (and stored), misses are held back. The held-back requests go
out as one batch; its replies are put into the cache and the next round evaluates those
items again, through the same parser, validation and re-asks as an online run (a re-ask
is a request of the next round). Error lines fail their items; after
``json_retries + 1`` rounds whatever is still unanswered fails.

A batch's state (input file id, batch id, status) is stored before and after it is
submitted, under a key derived from the requests themselves (model, endpoint, the sorted
request keys). A worker or CLI process that restarts mid-batch computes the same
requests, finds the stored batch and resumes polling it: it never submits twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from annotation_store import Store
from common import event_loop
from evaluators.base import EvalItem, EvalResult, Evaluator, llm_pool_held
from evaluators.llm import batch_api
from evaluators.llm.batch import BatchDeferred, BatchSession
from jobs.progress import count_results

#: Seconds between polls of a running batch (WORKBENCH_LLM_BATCH_POLL).
DEFAULT_POLL_S = 30.0


def poll_seconds() -> float:
    """The configured poll interval."""
    from common.config import get_setting

    value = get_setting("llm", "batch_poll")
    return float(value) if value not in (None, "") else DEFAULT_POLL_S


def state_key(model: str, base_url: str | None, keys: Sequence[str]) -> str:
    """Where a batch over exactly these requests is recorded."""
    digest = hashlib.sha256(f"{model}\n{base_url or ''}\n".encode())
    for key in sorted(keys):
        digest.update(key.encode("ascii") + b"\n")
    return f"batch:{digest.hexdigest()}"


class BatchRun:
    """The rounds of one repetition of a batch-mode run."""

    def __init__(
        self,
        store: Store,
        project: str,
        evaluator: Evaluator,
        run_id: int,
        progress: Any,
        on_progress: Callable[[Any], None] | None,
        should_cancel: Callable[[], bool] | None,
        poll_s: float | None = None,
    ) -> None:
        self.store, self.project, self.evaluator = store, project, evaluator
        self.run_id, self.progress = run_id, progress
        self.on_progress, self.should_cancel = on_progress, should_cancel
        self.poll_s = poll_seconds() if poll_s is None else poll_s
        self.llm = evaluator.ctx.llm
        discount = getattr(self.llm.config, "batch_discount", None)
        self.session = BatchSession(price_factor=1.0 - (discount or 0.0) / 100)
        info = progress.batch
        info.setdefault("batches", [])
        for name in ("requests", "failed_lines", "tokens_in", "tokens_out"):
            info.setdefault(name, 0)
        info.setdefault("cost", 0.0)
        info["discount_percent"] = discount

    async def run(self, items: Sequence[EvalItem]) -> bool:
        """Evaluate ``items`` round by round; True when cancelled."""
        rounds = int(getattr(self.llm.config, "json_retries", 2)) + 1
        remaining = list(items)
        self.llm.batch = self.session
        try:
            async with llm_pool_held(self.llm):
                for round_no in range(rounds + 1):
                    self.session.final = round_no == rounds
                    self.session.requests, self.session.records = {}, {}
                    remaining = await self._evaluate(remaining)
                    if not remaining:
                        return False
                    outcome = await self._send(self.session.requests, self.session.records)
                    if outcome is None:
                        return True
                    self._ingest(outcome)
        finally:
            self.llm.batch = None
        return False  # pragma: no cover - the final round defers nothing

    async def _evaluate(self, items: Sequence[EvalItem]) -> list[EvalItem]:
        """One pass: store what could be evaluated, return the items held back."""
        outs = await asyncio.gather(
            *(self.evaluator.evaluate([it]) for it in items), return_exceptions=True
        )
        results: list[EvalResult] = []
        waiting: list[EvalItem] = []
        sig = self.evaluator.signature()
        for item, out in zip(items, outs, strict=True):
            if isinstance(out, BatchDeferred):
                waiting.append(item)
            elif isinstance(out, BaseException):
                results.append(
                    EvalResult.failure(item.item_id, sig, f"{type(out).__name__}: {out}")
                )
            else:
                results.extend(out)
        if results:
            await asyncio.to_thread(self._save, results)
        return waiting

    def _save(self, results: list[EvalResult]) -> None:
        self.store.save_results(self.project, self.run_id, results)
        count_results(self.progress, results)
        self._report()

    def _report(self) -> None:
        self.progress.batch["summary"] = summary_line(self.progress.batch)
        if self.on_progress is not None:
            self.on_progress(self.progress)

    async def _send(
        self, requests: dict[str, dict[str, Any]], records: dict[str, dict[str, Any]]
    ) -> batch_api.BatchOutcome | None:
        """Submit (or find the already submitted) batch and wait for it; None if cancelled."""
        client = self.llm.openai_client()
        cfg = self.llm.config
        retry = batch_api.Retry(max(6, cfg.max_retries + 1), cfg.backoff_base_s)

        def call(label: str, fn: Callable[[], Any]) -> Any:
            return batch_api.with_retries(label, fn, retry)

        key = state_key(self.llm.model, cfg.base_url, list(requests))
        state = await asyncio.to_thread(self.store.batch_state_get, key) or {}
        if not state:
            key, state = await asyncio.to_thread(self._unread_batch, key, requests)
        batch = None
        if state.get("batch_id"):
            batch = await call(
                f"status check of batch {state['batch_id']}",
                lambda: batch_api.retrieve(client, state["batch_id"]),
            )
            if batch.status in ("failed", "expired", "cancelled") and not state.get("ingested"):
                batch = None  # ended without replies: these requests go out again
                state = {}
        elif state.get("input_file_id"):
            batch = await call(
                "looking up the batch",
                lambda: batch_api.find_by_input(client, state["input_file_id"]),
            )
        if batch is None:
            if not state.get("input_file_id"):
                file_id = await call(
                    "uploading the requests", lambda: batch_api.upload(client, requests)
                )
                state = {
                    "input_file_id": file_id,
                    "requests": len(requests),
                    "keys": sorted(requests),
                }
                await asyncio.to_thread(self.store.batch_state_put, key, self.llm.model, state)
            batch = await batch_api.create_once(client, state["input_file_id"], key, retry)
        state.update(batch_id=batch.id, status=batch.status)
        await asyncio.to_thread(self.store.batch_state_put, key, self.llm.model, state)
        info = self.progress.batch
        if batch.id not in [b["batch_id"] for b in info["batches"]]:
            info["batches"].append(
                {"batch_id": batch.id, "input_file_id": state["input_file_id"], "state_key": key}
            )
            info["requests"] += len(requests)
        info["status"] = batch.status
        await asyncio.to_thread(self._report)
        batch_id = batch.id
        while batch.status not in batch_api.FINISHED:
            if self.should_cancel is not None and await asyncio.to_thread(self.should_cancel):
                await call(
                    f"cancelling batch {batch_id}", partial(batch_api.cancel, client, batch_id)
                )
                state["status"] = "cancelled"
                await asyncio.to_thread(self.store.batch_state_put, key, self.llm.model, state)
                return None
            await asyncio.sleep(self.poll_s)
            batch = await call(
                f"status check of batch {batch_id}", partial(batch_api.retrieve, client, batch_id)
            )

        async def keep(replies: dict[str, dict[str, Any]]) -> None:
            # Paid replies go into the cache before anything else can fail: a resume
            # finds them there and sends nothing again.
            entries = [(k, self.llm.model, records[k], r) for k, r in replies.items()]
            await asyncio.to_thread(self.store.cache_put_many, entries)

        outcome = await batch_api.read_results(
            client, batch, requests, self.llm.normalise, self.llm.redact_text, keep, call
        )
        state.update(status=batch.status, ingested=True)
        await asyncio.to_thread(self.store.batch_state_put, key, self.llm.model, state)
        info["status"] = batch.status
        return outcome

    def _unread_batch(
        self, key: str, requests: dict[str, dict[str, Any]]
    ) -> tuple[str, dict[str, Any]]:
        """A sent batch not yet fully read that holds all of ``requests`` (or ``key``, {}).

        A run that stopped while reading a batch's files has cached part of its replies;
        the rest of its requests are then a smaller set under another key, and they are
        read from the same batch rather than paid for again.
        """
        wanted = set(requests)
        for other, state in self.store.batch_states().items():
            if (
                state.get("batch_id")
                and not state.get("ingested")
                and state.get("status") not in ("failed", "expired", "cancelled")
                and wanted <= set(state.get("keys") or ())
            ):
                return other, state
        return key, {}

    def _ingest(self, outcome: batch_api.BatchOutcome) -> None:
        """Replies become cache hits counted as fresh calls; error lines fail their items."""
        self.session.fresh.update(outcome.replies)
        self.session.errors.update(outcome.errors)
        info = self.progress.batch
        info["failed_lines"] += len(outcome.errors)
        info["tokens_in"] += outcome.tokens_in
        info["tokens_out"] += outcome.tokens_out
        info["cost"] = info.get("cost", 0.0) + self.llm.config.cost(
            outcome.tokens_in, outcome.tokens_out
        )


def summary_line(info: dict[str, Any]) -> str:
    """What the batches did and cost, as far as the endpoint and the settings say."""
    ids = ", ".join(b["batch_id"] for b in info.get("batches", [])) or "none"
    line = (
        f"batch mode: {info.get('requests', 0)} requests in batch(es) {ids}, "
        f"{info.get('failed_lines', 0)} failed lines; usage reported by the endpoint: "
        f"{info.get('tokens_in', 0)} input / {info.get('tokens_out', 0)} output tokens"
    )
    cost = float(info.get("cost") or 0.0)
    discount = info.get("discount_percent")
    if cost and discount:
        line += (
            f"; ${cost:.4f} at online prices, ${cost * (1 - discount / 100):.4f} with the "
            f"configured {discount:g} % batch discount (saved ${cost * discount / 100:.4f})"
        )
    elif cost:
        line += f"; ${cost:.4f} at online prices (no batch discount configured)"
    return line


def run_batch_mode(
    store: Store,
    project: str,
    evaluator: Evaluator,
    items: Sequence[EvalItem],
    run_id: int,
    progress: Any,
    on_progress: Callable[[Any], None] | None,
    should_cancel: Callable[[], bool] | None,
    poll_s: float | None = None,
) -> bool:
    """Evaluate ``items`` for one run through batches; True when cancelled."""
    started = time.perf_counter()
    runner = BatchRun(
        store, project, evaluator, run_id, progress, on_progress, should_cancel, poll_s
    )
    cancelled = event_loop.run(runner.run(items))
    progress.batch["wall_s"] = round(
        progress.batch.get("wall_s", 0.0) + time.perf_counter() - started, 3
    )
    progress.batch["summary"] = summary_line(progress.batch)
    return cancelled
