"""A team deployment on one PostgreSQL database: two app servers queue jobs from the
browser, two ``cli.py worker --watch`` processes run them, one worker is killed (SIGKILL)
mid-job, and every item still ends with exactly one result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from annotation_store import Store
from jobs.worker import evaluate_params, submit_evaluate_job
from tests.e2e.harness import (
    ROOT,
    browser_page,
    open_page,
    running_app,
    wait_for_job_queued,
    wait_for_streamlit,
)
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.e2e

N_ITEMS = 16
PROJECTS = ("team-a", "team-b", "team-c")


@contextmanager
def _worker(env: dict[str, str], log_name: str) -> Iterator[subprocess.Popen[bytes]]:
    log_path = ROOT / "test-output" / log_name
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "cli.py", "worker", "--watch", "--poll", "0.5"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def _queue_in_browser(page, app, project: str) -> None:  # type: ignore[no-untyped-def]
    """Queue an intent-resolution job on the Evaluate page, as a user does."""
    open_page(page, app, f"evaluate?project={project}")
    page.get_by_role("heading", name="Evaluate").wait_for()
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Evaluators")
    box.locator("input").click()
    page.get_by_role("option", name="intent_resolution", exact=True).click()
    page.keyboard.press("Escape")
    wait_for_streamlit(page)  # the run with the choice has ended: a click now counts it
    page.get_by_role("button", name="Start").click()
    wait_for_job_queued(page, "intent_resolution")


def _wait(check, what: str, timeout_s: float = 120.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(what)


def test_two_servers_two_workers_one_killed_every_result_exactly_once(pg_url: str) -> None:
    store = Store(pg_url)
    for name in PROJECTS:
        store.create_project(name, "intent_resolution")
        store.upsert_items(
            name,
            [
                {"item_id": f"{name}-{i}", "fields": {"query": f"Q{i} {name}", "response": "R"}}
                for i in range(N_ITEMS)
            ],
        )
    with ScriptedLLM(default_delay_s=0.4) as llm:
        llm.handler = lambda req: Reply(content=json.dumps(INTENT_RESOLUTION_REPLY), delay_s=0.4)
        env = {
            **os.environ,
            "WORKBENCH_DB_URL": pg_url,
            "WORKBENCH_LLM_BASE_URL": llm.base_url,
            "WORKBENCH_LLM_API_KEY": "test-key",
            "WORKBENCH_LLM_MODEL": llm.model,
            "WORKBENCH_LLM_CONCURRENCY": "2",
            "WORKBENCH_JOBS_LEASE_S": "6",
            "PYTHONUNBUFFERED": "1",
        }
        app_env = {k: env[k] for k in env if k.startswith("WORKBENCH_LLM_")}
        app_env["WORKBENCH_JOBS_IN_APP"] = "0"  # the workers below run the jobs
        with (
            _worker(env, "worker-1.log") as w1,
            _worker(env, "worker-2.log") as w2,
            running_app(pg_url, app_env) as app_a,
            running_app(pg_url, app_env) as app_b,
        ):
            with browser_page() as page:
                _queue_in_browser(page, app_a, "team-a")
            with browser_page() as page:
                _queue_in_browser(page, app_b, "team-b")
            submit_evaluate_job(store, "team-c", evaluate_params(["intent_resolution"]))
            workers = {w.pid: w for w in (w1, w2)}

            def running_mid_way():  # type: ignore[no-untyped-def]
                for name in PROJECTS:
                    for job in store.jobs(name):
                        p = job.progress
                        pid = int((job.claimed_by or ":0").rsplit(":", 1)[1])
                        if job.status == "running" and pid in workers:
                            if 0 < int(p.get("done") or 0) < int(p.get("total") or 0):
                                return job, pid
                return None

            victim_job, victim_pid = _wait(running_mid_way, "no job was seen running mid-way")
            os.kill(victim_pid, signal.SIGKILL)
            workers[victim_pid].wait(timeout=10)

            def all_done():  # type: ignore[no-untyped-def]
                jobs = [j for name in PROJECTS for j in store.jobs(name)]
                return len(jobs) == 3 and all(j.status == "done" for j in jobs)

            _wait(all_done, "not every job finished after the kill", timeout_s=180)
            taken_over = store.job(victim_job.id)
            assert taken_over is not None and taken_over.attempts == 2
            assert taken_over.claimed_by != victim_job.claimed_by
        for name in PROJECTS:
            frame = store.results_frame(name, include_failed=True)
            counts = frame.groupby("item_id").size()
            assert sorted(counts.index) == sorted(f"{name}-{i}" for i in range(N_ITEMS))
            assert set(counts) == {1}, counts[counts != 1]
            assert set(frame["status"]) == {"ok"}
        # Only the killed worker's calls in flight were asked again (two batches of two).
        assert llm.calls <= len(PROJECTS) * N_ITEMS + 4
    store.close()
