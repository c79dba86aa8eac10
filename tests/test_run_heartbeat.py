"""A run whose process died is shown, then closed, as ``stopped`` (not ``running``)."""

from __future__ import annotations

import time
from datetime import timedelta

from annotation_store import Store
from annotation_store.records import utcnow
from common.records import Signature
from jobs.run_heartbeat import beating, run_state
from jobs.runner import run_evaluator


def _open_run(store: Store) -> int:
    store.create_project("s", "score")
    store.upsert_items("s", [{"item_id": "a", "fields": {"prediction": "x", "reference": "x"}}])
    return store.create_run("s", Signature("bleu", "1"), 0)


def test_a_run_without_heartbeat_reads_stopped_and_the_next_run_closes_it(
    store: Store,
) -> None:
    run_id = _open_run(store)
    (run,) = store.runs("s")
    assert run_state(run, stale_s=30) == "running"  # just opened
    later = utcnow() + timedelta(seconds=31)
    assert run_state(run, now=later, stale_s=30) == "stopped"
    assert store.close_stopped_runs("s", 30) == []  # still within the lease
    assert store.close_stopped_runs("s", 0) == [run_id]
    (run,) = store.runs("s")
    assert run.status == "stopped" and run.finished_at is not None


def test_a_live_run_beats_and_a_new_run_closes_a_dead_one(store: Store, monkeypatch) -> None:
    run_id = _open_run(store)
    with beating(store, [run_id], every_s=0.05):
        time.sleep(0.3)
    (run,) = store.runs("s")
    assert run.heartbeat_at is not None and run.heartbeat_at > run.created_at
    monkeypatch.setenv("WORKBENCH_JOBS_LEASE_S", "1")
    time.sleep(1.2)  # the "process" of run_id is gone: no beat for longer than the lease
    run_evaluator(store, "s", "bleu")
    assert [(r.id, r.status) for r in store.runs("s")] == [
        (run_id + 1, "done"),
        (run_id, "stopped"),
    ]
