"""Job leases: a claim names its worker, a lapsed lease passes the job to another worker,
which evaluates only what the dead worker's runs did not store; claims never collide."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import ClassVar

import pytest

from annotation_store import JobInfo, Store
from annotation_store.models import utcnow
from evaluators.base import EvalItem, EvalResult, Evaluator
from evaluators.registry import EVALUATORS
from jobs.worker import claim_next, evaluate_params, execute_job, job_state, submit_evaluate_job


class Counter(Evaluator):
    """Scores every item 1.0 and records which items it was asked about."""

    name = "test_lease_counter"
    kinds: ClassVar[tuple[str, ...]] = ("score",)
    fields: ClassVar[tuple[str, ...]] = ("label",)
    seen: ClassVar[list[str]] = []

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        Counter.seen.extend(it.item_id for it in items)
        return [EvalResult(it.item_id, self.signature(), scores={"label": 1.0}) for it in items]


@pytest.fixture(autouse=True)
def counter() -> Iterator[None]:
    EVALUATORS.add(Counter.name, Counter)
    Counter.seen = []
    yield
    EVALUATORS._entries.pop(Counter.name, None)


def _project(store: Store, n: int = 10) -> None:
    store.create_project("p", "score")
    store.upsert_items("p", [{"item_id": f"t{i}", "fields": {"text": "x"}} for i in range(n)])


def _queue(store: Store) -> int:
    return submit_evaluate_job(store, "p", evaluate_params([Counter.name], batch_size=4))


def test_a_claim_records_its_worker_and_the_lease_is_renewed_by_that_worker_only(
    any_store: Store,
) -> None:
    _project(any_store)
    job_id = _queue(any_store)
    job = any_store.claim_job("host-a:1", lease_s=30)
    assert isinstance(job, JobInfo)
    assert (job.id, job.status, job.claimed_by, job.attempts) == (job_id, "running", "host-a:1", 1)
    assert any_store.claim_job("host-b:2", lease_s=30) is None  # the lease holds
    assert any_store.renew_lease(job_id, "host-a:1") is True
    assert any_store.renew_lease(job_id, "host-b:2") is False


def test_a_lapsed_job_is_taken_over_and_only_unstored_items_are_evaluated(
    any_store: Store,
) -> None:
    _project(any_store)
    job_id = _queue(any_store)
    first = any_store.claim_job("dead:1", lease_s=30)
    assert first is not None
    # The first worker stored four results, then died (no more heartbeats).
    sig = Counter().signature()
    run_id = any_store.create_run("p", sig, 0, job_id)
    any_store.save_results(
        "p", run_id, [EvalResult(f"t{i}", sig, scores={"label": 1.0}) for i in range(4)]
    )
    any_store.update_job(job_id, heartbeat_at=utcnow() - timedelta(seconds=31))
    assert job_state(any_store.job(job_id), stale_after_s=30) == "stale"
    assert any_store.renew_lease(job_id, "dead:1") is True  # not taken yet: it may come back
    any_store.update_job(job_id, heartbeat_at=utcnow() - timedelta(seconds=31))

    again = any_store.claim_job("live:2", lease_s=30)
    assert again is not None
    assert (again.id, again.claimed_by, again.attempts) == (job_id, "live:2", 2)
    assert any_store.renew_lease(job_id, "dead:1") is False  # the old owner lost it
    assert {r.id: r.status for r in any_store.runs("p")}[run_id] == "cancelled"

    final = execute_job(any_store, job_id)
    assert final.status == "done"
    assert sorted(Counter.seen) == sorted(f"t{i}" for i in range(4, 10))
    frame = any_store.results_frame("p")
    assert sorted(frame["item_id"]) == sorted(f"t{i}" for i in range(10))  # each exactly once


def test_a_lapsed_job_that_was_being_cancelled_ends_cancelled(store: Store) -> None:
    _project(store)
    job_id = _queue(store)
    store.claim_job("dead:1", lease_s=30)
    store.update_job(job_id, status="cancelling", heartbeat_at=utcnow() - timedelta(seconds=60))
    assert store.claim_job("live:2", lease_s=30) is None
    job = store.job(job_id)
    assert job is not None and job.status == "cancelled" and job.finished_at is not None


def test_concurrent_claimers_never_take_the_same_job(any_store: Store) -> None:
    _project(any_store, n=2)
    queued = {_queue(any_store) for _ in range(12)}
    other = Store(any_store.url)
    taken: list[tuple[str, int]] = []
    lock = threading.Lock()

    def claim_all(store: Store, who: str) -> None:
        while (job := store.claim_job(who, lease_s=30)) is not None:
            with lock:
                taken.append((who, job.id))

    threads = [
        threading.Thread(target=claim_all, args=(s, f"w{i}"))
        for i, s in enumerate([any_store, other, any_store, other])
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    other.close()
    ids = [job_id for _, job_id in taken]
    assert sorted(ids) == sorted(queued)  # every job claimed, none twice
    assert {any_store.job(i).claimed_by for i in ids} == {who for who, _ in taken}


def test_claim_next_names_this_process(store: Store) -> None:
    import os

    _project(store)
    job_id = _queue(store)
    assert claim_next(store) == job_id
    job = store.job(job_id)
    assert job is not None and job.claimed_by is not None
    assert job.claimed_by.endswith(f":{os.getpid()}")
