"""Background jobs: claim, execute, progress in the job row, cancel, stale, resume, worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from typing import ClassVar

import pytest

from annotation_store import Store
from annotation_store.models import utcnow
from evaluators.base import EvalItem, EvalResult, Evaluator
from evaluators.registry import EVALUATORS
from jobs.runner import run_evaluator
from jobs.worker import (
    Worker,
    claim_next,
    drain,
    evaluate_params,
    execute_job,
    job_state,
    request_cancel,
    resume_job,
    submit_evaluate_job,
)
from tests.support.apptest import open_app


class LengthScore(Evaluator):
    """Scores a text by its length (a stand-in evaluator; no model, deterministic)."""

    name = "test_jobs_length"
    kinds: ClassVar[tuple[str, ...]] = ("score",)
    fields: ClassVar[tuple[str, ...]] = ("label",)
    on_batch: ClassVar[Callable[[Sequence[EvalItem]], None] | None] = None
    fail_ids: ClassVar[set[str]] = set()

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        if LengthScore.on_batch is not None:
            LengthScore.on_batch(items)
        sig = self.signature()
        out = []
        for it in items:
            if it.item_id in LengthScore.fail_ids:
                out.append(EvalResult.failure(it.item_id, sig, "scripted failure"))
            else:
                out.append(
                    EvalResult(
                        it.item_id,
                        sig,
                        scores={"label": len(it.fields["text"]) / 10},
                        tokens_in=3,
                        tokens_out=1,
                        cost=0.001,
                    )
                )
        return out


@pytest.fixture(autouse=True)
def length_evaluator() -> Iterator[None]:
    """Register the stand-in evaluator for this module only."""
    EVALUATORS.add(LengthScore.name, LengthScore)
    LengthScore.on_batch = None
    LengthScore.fail_ids = set()
    yield
    EVALUATORS._entries.pop(LengthScore.name, None)


def _project(store: Store, n: int = 10) -> None:
    store.create_project("p", "score")
    store.upsert_items(
        "p",
        [
            {"item_id": f"t{i}", "fields": {"text": "x" * i}, "split": "dev" if i < 3 else "test"}
            for i in range(n)
        ],
    )


def _queue(store: Store, **kw) -> int:
    return submit_evaluate_job(store, "p", evaluate_params([LengthScore.name], batch_size=3, **kw))


def test_a_job_runs_to_done_with_counters_in_its_row(any_store: Store) -> None:
    _project(any_store)
    LengthScore.fail_ids = {"t4"}
    job_id = _queue(any_store)
    assert any_store.job(job_id).status == "queued"
    assert claim_next(any_store) == job_id
    assert claim_next(any_store) is None  # nobody else gets it
    job = execute_job(any_store, job_id)
    assert job.status == "done"
    p = job.progress
    assert (p["total"], p["done"], p["failed"], p["cached"]) == (10, 10, 1, 0)
    assert (p["tokens_in"], p["tokens_out"]) == (27, 9)
    assert p["cost"] == pytest.approx(0.009)
    assert p["evaluators"][LengthScore.name]["status"] == "done"
    scores = any_store.scores_frame("p").set_index("item_id")["score"]
    assert scores["t7"] == pytest.approx(0.7)
    assert "t4" not in scores.index


def test_subsets_first_n_split_and_ids(store: Store) -> None:
    _project(store)
    for subset, expected in (
        ({"mode": "first", "n": 2}, ["t0", "t1"]),
        ({"mode": "split", "split": "dev"}, ["t0", "t1", "t2"]),
        ({"mode": "ids", "ids": ["t9", "t5"]}, ["t5", "t9"]),
    ):
        job_id = _queue(store, subset=subset)
        drain(store)
        runs = [r for r in store.runs("p") if r.job_id == job_id]
        frame = store.results_frame("p")
        assert sorted(frame[frame["run_id"] == runs[0].id]["item_id"]) == expected


def test_cancel_stops_at_the_next_batch_and_resume_finishes_only_the_rest(store: Store) -> None:
    _project(store)
    job_id = _queue(store)
    seen: list[str] = []

    def cancel_after_first_batch(items: Sequence[EvalItem]) -> None:
        seen.extend(i.item_id for i in items)
        if len(seen) == 3:
            request_cancel(store, job_id)
            assert store.job(job_id).status == "cancelling"

    LengthScore.on_batch = cancel_after_first_batch
    drain(store)
    job = store.job(job_id)
    assert job.status == "cancelled"
    assert job.progress["done"] == 3
    assert [r.status for r in store.runs("p")] == ["cancelled"]

    LengthScore.on_batch = None
    seen.clear()
    LengthScore.on_batch = lambda items: seen.extend(i.item_id for i in items)
    new_id = resume_job(store, job_id)
    assert store.job(new_id).params["only_missing"] is True
    assert store.job(new_id).params["resume_of"] == job_id
    drain(store)
    new = store.job(new_id)
    assert new.status == "done"
    assert (new.progress["total"], new.progress["done"]) == (7, 7)
    assert seen == [f"t{i}" for i in range(3, 10)]
    assert len(store.results_frame("p")) == 10


def test_cancelling_a_queued_job_cancels_it_at_once(store: Store) -> None:
    _project(store)
    job_id = _queue(store)
    assert request_cancel(store, job_id).status == "cancelled"
    assert claim_next(store) is None


def test_a_dead_worker_leaves_a_stale_job_that_can_be_resumed(store: Store) -> None:
    _project(store)
    job_id = _queue(store)
    claim_next(store)
    run_id = store.create_run("p", LengthScore().signature(), 0, job_id)  # the dead job's run
    assert job_state(store.job(job_id)) == "running"
    with pytest.raises(ValueError, match="is running"):
        resume_job(store, job_id)  # a live job is not resumed behind its worker's back
    store.update_job(job_id, heartbeat_at=utcnow() - timedelta(minutes=5))
    assert job_state(store.job(job_id)) == "stale"
    new_id = resume_job(store, job_id)
    old = store.job(job_id)
    assert old.status == "failed" and "heartbeat" in old.error
    assert {r.id: r.status for r in store.runs("p")}[run_id] == "cancelled"
    drain(store)
    assert store.job(new_id).status == "done"


def test_only_missing_skips_items_with_a_result_of_the_same_signature(store: Store) -> None:
    _project(store)
    run_evaluator(store, "p", LengthScore.name, item_ids=["t1", "t2"])
    progress = run_evaluator(store, "p", LengthScore.name, skip_existing=True)
    assert (progress.total, progress.done) == (8, 8)
    again = run_evaluator(store, "p", LengthScore.name, skip_existing=True)
    assert (again.total, again.run_ids) == (0, [])


def test_the_worker_runs_jobs_off_the_calling_thread(store: Store) -> None:
    _project(store)
    threads: set[str] = set()
    gate = threading.Event()

    def slow(items: Sequence[EvalItem]) -> None:
        threads.add(threading.current_thread().name)
        gate.wait(5)

    LengthScore.on_batch = slow
    worker = Worker(store, max_workers=1, poll_s=0.1).start()
    try:
        job_id = _queue(store)
        worker.wake()
        deadline = time.monotonic() + 5
        while store.job(job_id).status != "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.job(job_id).status == "running"  # the caller was never blocked
        gate.set()
        while store.job(job_id).status != "done" and time.monotonic() < deadline + 5:
            time.sleep(0.05)
        assert store.job(job_id).status == "done"
        assert threads and all(t.startswith("job") for t in threads)
        assert threading.current_thread().name not in threads
    finally:
        gate.set()
        worker.stop()


def test_params_are_checked(store: Store) -> None:
    _project(store)
    with pytest.raises(ValueError, match="at least one"):
        evaluate_params([])
    with pytest.raises(ValueError, match="subset mode"):
        evaluate_params([LengthScore.name], subset={"mode": "half"})
    with pytest.raises(ValueError, match="does not apply"):
        submit_evaluate_job(store, "p", evaluate_params(["bifact"]))


def test_an_idle_poll_does_not_take_the_write_lock(store: Store, sqlite_url: str) -> None:
    import sqlite3

    _project(store)
    holder = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # someone is saving a label right now
    try:
        answer: list[int | None] = []
        poll = threading.Thread(target=lambda: answer.append(claim_next(store)), daemon=True)
        poll.start()
        poll.join(timeout=5)
        assert not poll.is_alive(), "an idle poll waited for the write lock"
        assert answer == [None]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    job_id = _queue(store)
    assert claim_next(store) == job_id
    assert store.job(job_id).status == "running"


def _wait_status(store: Store, job_id: int, wanted: str, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while store.job(job_id).status != wanted and time.monotonic() < deadline:
        time.sleep(0.1)
    return str(store.job(job_id).status)


def test_opening_the_app_starts_the_worker_for_jobs_queued_before_a_restart(
    monkeypatch: pytest.MonkeyPatch, store: Store, sqlite_url: str
) -> None:
    from ui.audit import jobs_view

    _project(store)
    job_id = _queue(store)  # queued while no server was running
    open_app(monkeypatch, sqlite_url)  # the home page, not Evaluate
    try:
        assert _wait_status(store, job_id, "done", 30) == "done"
    finally:
        jobs_view.stop_workers()


def test_jobs_in_app_off_leaves_jobs_to_cli_workers(
    monkeypatch: pytest.MonkeyPatch, store: Store, sqlite_url: str
) -> None:
    _project(store)
    job_id = _queue(store)
    monkeypatch.setenv("WORKBENCH_JOBS_IN_APP", "0")
    open_app(monkeypatch, sqlite_url)
    assert _wait_status(store, job_id, "running", 2.5) == "queued"  # 2.5 polls' time


def test_llm_runs_keep_the_concurrency_limit_busy_across_small_batches(
    store: Store, llm_env, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from tests.support.replies import INTENT_RESOLUTION_REPLY
    from tests.support.scripted_llm import Reply

    monkeypatch.setenv("WORKBENCH_LLM_CONCURRENCY", "12")
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [{"item_id": f"q{i}", "fields": {"query": f"q {i}", "response": "a"}} for i in range(48)],
    )
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def handler(req: dict) -> Reply:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.3)
        with lock:
            in_flight[0] -= 1
        return Reply(content=json.dumps(INTENT_RESOLUTION_REPLY))

    llm_env.handler = handler
    progress = run_evaluator(store, "ir", "intent_resolution", batch_size=4)
    errors = store.results_frame("ir", include_failed=True)["error"].dropna().unique()
    assert (progress.done, progress.failed) == (48, 0), errors
    # batches of 4 side by side: the limit of 12, not the batch size, bounds the calls
    assert 8 < peak[0] <= 12  # one batch at a time would peak at 4


def test_a_job_without_a_batch_size_uses_the_evaluator_default(
    any_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(any_store, n=10)
    monkeypatch.setattr(LengthScore, "default_batch_size", 4)
    sizes: list[int] = []
    LengthScore.on_batch = lambda items: sizes.append(len(items))
    params = evaluate_params([LengthScore.name])
    assert params["batch_size"] is None
    job_id = submit_evaluate_job(any_store, "p", params)
    assert execute_job(any_store, job_id).status == "done"
    assert sizes == [4, 4, 2]
    sizes.clear()
    run_evaluator(any_store, "p", LengthScore.name, batch_size=3)
    assert sizes == [3, 3, 3, 1]


def test_local_evaluators_batch_more_items_than_llm_judges_by_default() -> None:
    from evaluators.registry import get_evaluator_class

    assert get_evaluator_class("nli_bidirectional").default_batch_size == 256
    assert get_evaluator_class("embedding_cosine").default_batch_size == 256
    assert get_evaluator_class("bifact").default_batch_size == 16


def test_an_llm_judge_batches_no_more_items_than_its_concurrency_limit() -> None:
    from types import SimpleNamespace

    from evaluators.base import EvalContext
    from evaluators.registry import create_evaluator

    def judge(concurrency: int):
        llm = SimpleNamespace(config=SimpleNamespace(concurrency=concurrency), model="m")
        return create_evaluator("intent_resolution", None, EvalContext(llm=llm))

    assert [judge(c).preferred_batch_size() for c in (1, 4, 16, 64)] == [1, 4, 16, 16]
    assert create_evaluator("intent_resolution").preferred_batch_size() == 16  # no client
