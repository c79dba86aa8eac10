"""Run one evaluator over a project's items, store results per run, report progress.

The same function serves ``python cli.py evaluate`` and the app's background jobs. It
never holds a database session across an evaluator call: each batch is evaluated, then
its results are written in one short transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from annotation_store import Store
from common import event_loop
from evaluators.base import EvalContext, EvalItem, Evaluator, llm_pool_held
from evaluators.registry import create_evaluator, get_evaluator_class
from jobs.progress import RunProgress as RunProgress
from jobs.progress import count_results
from jobs.run_heartbeat import beating, stale_after_s

ProgressFn = Callable[[RunProgress], None]
CancelFn = Callable[[], bool]


def build_context(store: Store, options: Mapping[str, Any] | None = None) -> EvalContext:
    """An evaluation context: the configured LLM client (if any) and the store's caches."""
    llm = None
    try:
        from evaluators.llm.client import build_llm_client
    except ImportError:  # the LLM layer is optional for local evaluators
        build_llm_client = None  # type: ignore[assignment]
    if build_llm_client is not None:
        llm = build_llm_client(cache=store)
    return EvalContext(llm=llm, cache=store, pages=store, options=dict(options or {}))


def select_items(
    store: Store, project: str, item_ids: Sequence[str] | None = None, limit: int | None = None
) -> list[EvalItem]:
    """The project's items as evaluator input (with the project's kind), optionally a
    subset and/or the first N."""
    kind = store.project(project).kind
    records = store.items(project)
    if item_ids is not None:
        wanted = set(item_ids)
        records = [r for r in records if r.item_id in wanted]
    if limit is not None:
        records = records[:limit]
    return [EvalItem(r.item_id, r.fields, r.generator, kind) for r in records]


def run_evaluator(
    store: Store,
    project: str,
    evaluator: str | Evaluator,
    *,
    runs: int | None = None,
    item_ids: Sequence[str] | None = None,
    limit: int | None = None,
    settings: Mapping[str, Any] | None = None,
    ctx: EvalContext | None = None,
    job_id: int | None = None,
    batch_size: int | None = None,
    on_progress: ProgressFn | None = None,
    should_cancel: CancelFn | None = None,
    skip_existing: bool = False,
    mode: str = "online",
    poll_s: float | None = None,
    skip_job_results: bool = False,
) -> RunProgress:
    """Evaluate items ``runs`` times (default: the evaluator's own default).

    With ``skip_existing`` (resume), an item is left out of repetition ``r`` when it
    already has a successful result with the same signature and run index; a repetition
    with nothing left opens no run at all. With ``skip_job_results`` (a job taken over
    from a dead worker), every result job ``job_id``'s runs stored is left out as well.

    ``mode="batch"`` sends an LLM judge's requests through the OpenAI Batch API
    (``jobs/batch_mode.py``; ``poll_s`` between polls) instead of one call each.

    Raises :class:`evaluators.base.NotConfiguredError` before doing anything when the
    evaluator cannot run here. Returns the final counters.
    """
    if mode not in MODES:
        raise ValueError(f"unknown run mode {mode!r} (choose {' or '.join(MODES)})")
    info = store.project(project)
    if isinstance(evaluator, str) and evaluator.startswith("judge:"):
        evaluator = stored_judge(store, info.kind, evaluator, settings, ctx)
    if isinstance(evaluator, str):
        cls = get_evaluator_class(evaluator)
        if not cls.applies_to(info.kind) and not getattr(cls, "panel", False):
            raise ValueError(
                f"evaluator {evaluator!r} does not apply to kind {info.kind!r} "
                f"(it applies to {', '.join(cls.kinds) or 'kinds that declare what it needs'})"
            )
        ctx = ctx or build_context(store)
        evaluator = create_evaluator(evaluator, settings, ctx)
    if hasattr(evaluator, "bind_members"):  # a jury: its members are built here
        evaluator.bind_members(jury_members(store, info.kind, evaluator))
    evaluator.check_available()
    if mode == "batch" and not supports_batch(evaluator):
        raise ValueError(
            f"evaluator {evaluator.name!r} cannot run in batch mode (only LLM judges on an "
            "OpenAI-compatible endpoint can)"
        )
    batch_size = batch_size or evaluator.preferred_batch_size()
    n_runs = runs or evaluator.default_runs
    items = select_items(store, project, item_ids, limit)
    todo = {r: items for r in range(n_runs)}
    if skip_existing or (skip_job_results and job_id is not None):
        sig = str(evaluator.signature())
        done = existing_results(store, project, sig) if skip_existing else set()
        if skip_job_results and job_id is not None:
            done |= store.job_result_keys(job_id, sig)
        todo = {r: [it for it in items if (it.item_id, r) not in done] for r in range(n_runs)}
    progress = RunProgress(total=sum(len(v) for v in todo.values()), mode=mode)
    store.close_stopped_runs(project, stale_after_s())
    with beating(store, progress.run_ids):
        for run_index in range(n_runs):
            run_items = todo[run_index]
            if not run_items:
                continue
            evaluator.ctx.run_index = run_index
            run_id = store.create_run(project, evaluator.signature(), run_index, job_id)
            progress.run_ids.append(run_id)
            try:
                if mode == "batch":
                    from jobs.batch_mode import run_batch_mode

                    cancelled = run_batch_mode(
                        store, project, evaluator, run_items, run_id, progress,
                        on_progress, should_cancel, poll_s,
                    )  # fmt: skip
                else:
                    cancelled = _run_batches(
                        store, project, evaluator, run_items, run_id, batch_size,
                        progress, on_progress, should_cancel,
                    )  # fmt: skip
            except BaseException:
                # Whatever stopped it (a fault, Ctrl-C), the run must not stay "running".
                with contextlib.suppress(Exception):
                    store.finish_run(run_id, "stopped")
                raise
            store.finish_run(run_id, "cancelled" if cancelled else "done")
            if cancelled:
                break
    return progress


def stored_judge(
    store: Store,
    kind: str,
    evaluator: str,
    settings: Mapping[str, Any] | None = None,
    ctx: EvalContext | None = None,
) -> Evaluator:
    """The evaluator of a stored judge, ``judge:NAME[@N]`` (the latest version without N).

    A judge takes two run settings: ``probe`` (a probe run of that version, see
    :mod:`evaluators.judges.probes`) and ``samples`` (replies per item instead of the
    version's own number; the signature records it); everything else belongs to the
    version."""
    from evaluators.judges.evaluator import SAMPLES_KEY, from_record, split_name
    from evaluators.judges.injection import ATTACK_KEY
    from evaluators.judges.probes import PROBE_KEY

    extra = set(settings or {}) - {PROBE_KEY, SAMPLES_KEY, ATTACK_KEY}
    if extra:
        raise ValueError(
            "a judge's settings belong to its version: edit the judge instead "
            f"(a run takes only {PROBE_KEY!r}, {ATTACK_KEY!r} and {SAMPLES_KEY!r})"
        )
    name, version = split_name(evaluator)
    record = store.judge(name, version)
    if record.kind != kind:
        raise ValueError(f"judge {name!r} scores kind {record.kind!r}, the project is {kind!r}")
    probe = (settings or {}).get(PROBE_KEY)
    samples = (settings or {}).get(SAMPLES_KEY)
    attack = (settings or {}).get(ATTACK_KEY)
    return from_record(
        record, ctx or build_context(store), probe=probe, samples=samples, attack=attack
    )


def jury_members(store: Store, kind: str, jury: Any) -> list[Evaluator]:
    """A jury's member evaluators, built like any run's (stored judges from the store),
    sharing the jury's context."""
    members: list[Evaluator] = []
    for name in jury.settings.members:
        if name.startswith("judge:"):
            members.append(stored_judge(store, kind, name, None, jury.ctx))
            continue
        if name == jury.name:
            raise ValueError("a jury cannot sit on a jury")
        cls = get_evaluator_class(name)
        if not cls.applies_to(kind):
            raise ValueError(f"jury member {name!r} does not apply to kind {kind!r}")
        members.append(create_evaluator(name, None, jury.ctx))
    return members


MODES = ("online", "batch")


def batch_capable(cls: type[Evaluator]) -> bool:
    """True for an evaluator class that can run in batch mode (an LLM judge)."""
    from evaluators.llm.evaluator import LLMEvaluator

    return issubclass(cls, LLMEvaluator)


def supports_batch(evaluator: Evaluator) -> bool:
    """True for an LLM judge whose client can send batches."""
    return batch_capable(type(evaluator)) and hasattr(evaluator.ctx.llm, "openai_client")


def has_corpus_summary(evaluator: str) -> bool:
    """True when the registered evaluator reports corpus-level figures after a run."""
    try:
        cls = get_evaluator_class(evaluator)
    except Exception:  # imported scores of an evaluator this installation does not know
        return False
    return cls.corpus_summary.__func__ is not Evaluator.corpus_summary.__func__  # type: ignore[attr-defined]


def run_corpus_summary(store: Store, run_id: int, evaluator: str) -> dict[str, Any] | None:
    """The evaluator's corpus-level figures over one stored run (None if it has none)."""
    if not has_corpus_summary(evaluator):
        return None
    return get_evaluator_class(evaluator).corpus_summary(store.run_results(run_id))


def existing_results(store: Store, project: str, signature_text: str) -> set[tuple[str, int]]:
    """(item_id, run_index) pairs that already have a successful result with this signature."""
    frame = store.results_frame(project)
    frame = frame[frame["signature"] == signature_text]
    return {(str(i), int(r)) for i, r in zip(frame["item_id"], frame["run_index"], strict=True)}


def batches_in_flight(evaluator: Evaluator, batch_size: int) -> int:
    """How many batches are evaluated at once.

    An LLM evaluator gets enough batches to keep its client's concurrency limit busy,
    plus one so the next batch is ready when one finishes: with one batch at a time, a
    batch of 4 would cap a limit of 16 at 4 calls, and each batch would wait for its
    slowest call. A local evaluator gets one (it keeps the CPU busy by itself).
    """
    config = getattr(evaluator.ctx.llm, "config", None)
    if not evaluator.requires_llm or config is None:
        return 1
    return -(-max(1, int(config.concurrency)) // max(1, batch_size)) + 1


#: Items in flight at most while batches come back wholly from the cache.
CACHED_ITEMS_IN_FLIGHT = 1024


def window_after(results: Sequence[Any], base: int, batch_size: int) -> int:
    """How many batches to keep in flight after a batch finished with ``results``.

    A batch answered wholly from the cache made no call, so more of them in flight cost
    the endpoint nothing; they let the cache lookups of many batches share one query
    and one thread hand-off (a cached re-run is bound by those, not by calls). A batch
    that made a call brings the window back to ``base``; misses are limited by the
    client's concurrency limit either way.
    """
    if results and all(getattr(r, "cached", False) for r in results):
        return max(base, CACHED_ITEMS_IN_FLIGHT // max(1, batch_size))
    return base


def _run_batches(
    store: Store,
    project: str,
    evaluator: Evaluator,
    items: list[EvalItem],
    run_id: int,
    batch_size: int,
    progress: RunProgress,
    on_progress: ProgressFn | None,
    should_cancel: CancelFn | None,
) -> bool:
    """Evaluate ``items`` in batches in one event loop; True when cancelled.

    Batches are the unit of saving, progress and cancellation: each finished batch is
    stored in one transaction, and cancellation is checked before a batch starts (batches
    already under way finish and are kept, since their calls are paid for).
    """
    window = batches_in_flight(evaluator, batch_size)
    batches = [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
    with _older_objects_frozen():
        return event_loop.run(
            _pipeline(
                store,
                project,
                evaluator,
                batches,
                run_id,
                window,
                progress,
                on_progress,
                should_cancel,
            )
        )


@contextlib.contextmanager
def _older_objects_frozen() -> Iterator[None]:
    """Leave the objects that exist before a run out of the collector's full passes.

    A run allocates many short-lived objects, which sets off several full collections;
    each one walks every object of the process (the imported libraries, the items), about
    0.15 s each on this machine and 5 % of a live run's CPU. Frozen objects are handed
    back to the collector when the run ends, so nothing is kept longer than that.

    Only a run on the main thread (the CLI, ``cli.py worker``) freezes: ``gc.freeze`` is
    process-wide, and in the app a job runs on a background thread while the sessions'
    own garbage must stay collectable.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


async def _pipeline(
    store: Store,
    project: str,
    evaluator: Evaluator,
    batches: list[list[EvalItem]],
    run_id: int,
    window: int,
    progress: RunProgress,
    on_progress: ProgressFn | None,
    should_cancel: CancelFn | None,
) -> bool:
    pending: set[asyncio.Task[list[Any]]] = set()
    base_window, size = window, max((len(b) for b in batches), default=1)
    started = 0
    cancelled = False
    saver = _Saver(store, project, run_id, progress, on_progress)
    # The LLM client's HTTP pool stays open (its connections reused) for the whole run.
    async with llm_pool_held(evaluator.ctx.llm):
        try:
            while pending or (not cancelled and started < len(batches)):
                while not cancelled and started < len(batches) and len(pending) < window:
                    if should_cancel is not None and await asyncio.to_thread(should_cancel):
                        cancelled = True
                        break
                    pending.add(asyncio.create_task(evaluator.evaluate(batches[started])))
                    started += 1
                if not pending:
                    break
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    results = task.result()
                    saver.add(results)
                    window = window_after(results, base_window, size)
            await saver.drain()
        finally:
            for task in pending:  # only after an error: do not leave calls running
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
            await saver.close()
    return cancelled


class _Saver:
    """Stores finished batches in the background, several at once when they queue up.

    Evaluation goes on while a transaction commits; batches that finish meanwhile are
    written together by the next one, so a cached re-run (where batches finish faster
    than commits) makes few transactions, and a slow commit never idles the model calls.
    Progress is reported after each transaction.
    """

    def __init__(
        self,
        store: Store,
        project: str,
        run_id: int,
        progress: RunProgress,
        on_progress: ProgressFn | None,
    ) -> None:
        self._store, self._project, self._run_id = store, project, run_id
        self._progress, self._on_progress = progress, on_progress
        self._queued: list[Any] = []
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None

    def add(self, results: Sequence[Any]) -> None:
        """Queue a finished batch; a write starts unless one is under way.

        Raises the error of an earlier write (the run stops there, as it did when each
        batch was written in turn)."""
        if self._error is not None:
            raise self._error
        self._queued.extend(results)
        if self._task is None:
            self._task = asyncio.create_task(self._write_all())

    async def drain(self) -> None:
        """Wait until everything queued is stored (raises the write's error)."""
        while self._task is not None:
            await asyncio.shield(self._task)
        if self._error is not None:
            raise self._error

    async def close(self) -> None:
        """Wait for a write under way (after an error elsewhere)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def _write_all(self) -> None:
        try:
            while self._queued and self._error is None:
                results, self._queued = self._queued, []
                await asyncio.to_thread(self._write, results)
        except Exception as exc:  # kept for add() / drain(), which raise it
            self._error = exc
        finally:
            self._task = None

    def _write(self, results: list[Any]) -> None:
        self._store.save_results(self._project, self._run_id, results)
        count_results(self._progress, results)
        if self._on_progress is not None:
            self._on_progress(self._progress)
