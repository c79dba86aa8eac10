"""Batch mode: requests through the scripted server's /v1/files and /v1/batches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from annotation_store import Store
from jobs.runner import run_evaluator
from tests.support.cli import ROOT
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM


def _reply(score: float) -> Reply:
    return Reply(content=json.dumps({**INTENT_RESOLUTION_REPLY, "resolution_score": score}))


def _score_by_query(req: dict) -> Reply:
    """q{i} gets score 0.2 x (i mod 6); the item q3 gets an error line."""
    text = req["messages"][-1]["content"]
    number = int(text.split("QUERY-")[1].split()[0])
    if number == 3:
        return Reply(status=500, content="scripted batch failure")
    return _reply(round(0.2 * (number % 6), 1))


def _project(store: Store, n: int) -> None:
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [
            {"item_id": f"q{i}", "fields": {"query": f"QUERY-{i} ?", "response": "an answer"}}
            for i in range(n)
        ],
    )


def _scores(store: Store) -> dict[str, float]:
    frame = store.scores_frame("ir")
    return dict(zip(frame["item_id"], frame["score"], strict=True))


def test_batch_run_scores_like_online_and_fails_error_lines(
    store: Store, llm_env: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_PRICE_IN", "2.0")
    monkeypatch.setenv("WORKBENCH_LLM_PRICE_OUT", "8.0")
    monkeypatch.setenv("WORKBENCH_LLM_BATCH_DISCOUNT", "50")
    _project(store, 6)
    llm_env.handler = _score_by_query
    progress = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert llm_env.calls == 0  # no online call: everything went through the batch
    assert llm_env.batch_creates == 1 and len(llm_env.batch_requests) == 6
    line = json.loads(llm_env.files["file-1"]["content"].splitlines()[0])
    assert line["url"] == "/v1/chat/completions" and line["body"]["model"] == llm_env.model
    assert (progress.done, progress.failed, progress.cached) == (6, 1, 0)
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4, "q4": 0.8, "q5": 1.0}
    failed = store.results_frame("ir", include_failed=True).set_index("item_id").loc["q3"]
    assert failed["status"] == "failed" and "scripted batch failure" in failed["error"]
    # usage from the batch (5 answered lines x 10 in / 5 out tokens), priced, discounted
    assert (progress.tokens_in, progress.tokens_out) == (50, 25)
    assert progress.cost == pytest.approx((50 * 2.0 + 25 * 8.0) / 1e6 * 0.5)
    info = progress.batch
    assert info["batches"][0]["batch_id"] == "batch-1" and info["failed_lines"] == 1
    assert "50 % batch discount" in info["summary"] and "50 input / 25 output" in info["summary"]
    # a re-run takes the replies from the cache and sends only the failed request again
    again = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert (again.cached, again.failed) == (5, 1)
    assert llm_env.batch_creates == 2 and len(llm_env.batch_requests) == 7


def test_an_unparsable_batch_reply_is_reasked_in_the_next_batch_then_failed(
    store: Store, llm_env: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_JSON_RETRIES", "1")
    _project(store, 2)
    llm_env.handler = lambda req: (
        Reply(content="no json here") if "QUERY-1" in json.dumps(req) else _reply(0.6)
    )
    progress = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    # round 1: both items; round 2: the re-ask of q1 (still unparsable) -> failed
    assert llm_env.batch_creates == 2 and len(llm_env.batch_requests) == 3
    assert (progress.done, progress.failed) == (2, 1)
    frame = store.results_frame("ir", include_failed=True).set_index("item_id")
    assert frame.loc["q1", "status"] == "failed" and "no valid JSON" in frame.loc["q1", "error"]
    assert _scores(store) == {"q0": 0.6}
    assert "no cost" not in progress.batch["summary"]


def test_cached_items_are_not_sent(store: Store, llm_env: ScriptedLLM) -> None:
    _project(store, 4)
    llm_env.handler = lambda req: _reply(0.4)
    run_evaluator(store, "ir", "intent_resolution", item_ids=["q0", "q1"])  # online
    assert llm_env.calls == 2
    progress = run_evaluator(store, "ir", "intent_resolution", mode="batch", poll_s=0.01)
    assert len(llm_env.batch_requests) == 2 and progress.cached == 2
    assert progress.done == 4 and progress.failed == 0


def test_batch_mode_refuses_a_local_evaluator(store: Store) -> None:
    store.create_project("s", "score")
    with pytest.raises(ValueError, match="cannot run in batch mode"):
        run_evaluator(store, "s", "bleu", mode="batch")


def test_a_restart_mid_batch_resumes_the_same_batch(sqlite_url: str, llm_env: ScriptedLLM) -> None:
    """The CLI process is killed while its batch runs; a new process polls the same one."""
    store = Store(sqlite_url)
    _project(store, 3)
    llm_env.handler = _score_by_query
    llm_env.hold_batches = True
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("PATH", "HOME", "LANG"))},
        **{k: v for k, v in os.environ.items() if k.startswith("WORKBENCH_")},
        "WORKBENCH_DB_URL": sqlite_url,
        "WORKBENCH_LLM_BATCH_POLL": "0.05",
    }
    cmd = [sys.executable, "cli.py", "evaluate", "ir", "--evaluator", "intent_resolution"]
    child = subprocess.Popen(
        [*cmd, "--mode", "batch"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while llm_env.batch_retrieves < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm_env.batch_creates == 1 and llm_env.batch_retrieves >= 2
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert store.scores_frame("ir").empty  # nothing came back before the restart
    llm_env.hold_batches = False
    again = subprocess.run(
        [*cmd, "--mode", "batch"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert llm_env.batch_creates == 1 and len(llm_env.files) == 2  # input and output only
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4}
    assert "batch-1" in again.stdout and "3 evaluated, 0 failed" in again.stdout
    store.close()


def test_a_batch_job_survives_a_killed_worker_and_resumes_the_same_batch(
    sqlite_url: str, llm_env: ScriptedLLM
) -> None:
    """A ``cli.py worker`` is killed mid-batch; the job row holds the batch id, and the
    resumed job polls that batch instead of sending a new one."""
    from datetime import timedelta

    from annotation_store.models import utcnow
    from jobs.worker import (
        claim_next,
        evaluate_params,
        execute_job,
        resume_job,
        submit_evaluate_job,
    )

    store = Store(sqlite_url)
    _project(store, 3)
    llm_env.handler = _score_by_query
    llm_env.hold_batches = True
    params = evaluate_params(["intent_resolution"], mode="batch")
    assert params["mode"] == "batch"
    job_id = submit_evaluate_job(store, "ir", params)
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("PATH", "HOME", "LANG"))},
        **{k: v for k, v in os.environ.items() if k.startswith("WORKBENCH_")},
        "WORKBENCH_DB_URL": sqlite_url,
        "WORKBENCH_LLM_BATCH_POLL": "0.05",
    }
    worker = subprocess.Popen(
        [sys.executable, "cli.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while llm_env.batch_retrieves < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm_env.batch_creates == 1
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    progress = store.job(job_id).progress["evaluators"]["intent_resolution"]
    assert progress["mode"] == "batch"
    assert progress["batch"]["batches"][0]["batch_id"] == "batch-1"
    store.update_job(job_id, heartbeat_at=utcnow() - timedelta(hours=1))  # the worker is gone
    llm_env.hold_batches = False
    resumed = resume_job(store, job_id)
    assert claim_next(store) == resumed
    job = execute_job(store, resumed)
    assert job.status == "done", job.error
    assert llm_env.batch_creates == 1
    assert _scores(store) == {"q0": 0.0, "q1": 0.2, "q2": 0.4}
    summary = job.progress["evaluators"]["intent_resolution"]["batch"]["summary"]
    assert "batch-1" in summary and "30 input / 15 output tokens" in summary
    store.close()


def test_the_evaluate_page_queues_a_batch_job_and_shows_its_summary(
    monkeypatch: pytest.MonkeyPatch, store: Store, llm_env: ScriptedLLM
) -> None:
    from tests.support.apptest import open_app

    _project(store, 2)
    at = open_app(
        monkeypatch,
        store.url,
        page="pages/evaluate.py",
        project="ir",
        env={"WORKBENCH_JOBS_IN_APP": "0"},
    )
    at.multiselect(key="ev_names").set_value(["intent_resolution"])
    at.radio(key="ev_run_mode").set_value("batch")
    at.button[0].click().run()
    assert [t.value for t in at.toast] == ["Job 1 queued."]
    assert store.job(1).params["mode"] == "batch"
    from jobs.worker import claim_next, execute_job

    monkeypatch.setenv("WORKBENCH_LLM_BATCH_POLL", "0.01")
    llm_env.handler = _score_by_query
    assert claim_next(store) == 1 and execute_job(store, 1).status == "done"
    at.run()
    captions = [c.value for c in at.caption]
    assert any(
        c.startswith("intent_resolution: batch mode: 2 requests in batch(es) batch-1")
        and c.endswith("(batch status: completed)")
        for c in captions
    ), captions


def test_a_batch_job_runs_a_local_evaluator_online(store: Store) -> None:
    from collections.abc import Sequence
    from typing import ClassVar

    from evaluators.base import EvalItem, EvalResult, Evaluator
    from evaluators.registry import EVALUATORS
    from jobs.worker import claim_next, evaluate_params, execute_job, submit_evaluate_job

    class Local(Evaluator):
        name = "test_local_in_batch_job"
        kinds: ClassVar[tuple[str, ...]] = ("score",)
        fields: ClassVar[tuple[str, ...]] = ("label",)

        async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
            return [EvalResult(i.item_id, self.signature(), scores={"label": 1.0}) for i in items]

    EVALUATORS.add(Local.name, Local)
    try:
        store.create_project("s", "score")
        store.upsert_items("s", [{"item_id": "a", "fields": {"prediction": "x"}}])
        job_id = submit_evaluate_job(store, "s", evaluate_params([Local.name], mode="batch"))
        assert claim_next(store) == job_id
        job = execute_job(store, job_id)
        assert job.status == "done", job.error
        assert job.progress["evaluators"][Local.name]["mode"] == "online"
        assert job.progress["done"] == 1
    finally:
        EVALUATORS._entries.pop(Local.name, None)


def test_cancelling_a_batch_run_cancels_the_batch(store: Store, llm_env: ScriptedLLM) -> None:
    _project(store, 2)
    llm_env.handler = lambda req: _reply(0.4)
    llm_env.hold_batches = True
    asked: list[bool] = []

    def cancel_on_second_look() -> bool:
        asked.append(True)
        return len(asked) >= 2  # the first look lets the batch start

    progress = run_evaluator(
        store,
        "ir",
        "intent_resolution",
        mode="batch",
        poll_s=0.01,
        should_cancel=cancel_on_second_look,
    )
    assert llm_env.batches["batch-1"]["status"] == "cancelled"
    assert progress.done == 0 and store.scores_frame("ir").empty
    assert [r.status for r in store.runs("ir")] == ["cancelled"]
