"""`jobs` and `worker` say so when there is nothing, instead of printing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "cli.py", "--db", url, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_jobs_and_worker_with_nothing_queued(demo: str) -> None:
    jobs = _cli(demo, "jobs", "demo-intent-match")
    assert jobs.returncode == 0, jobs.stderr
    assert jobs.stdout == "no jobs for demo-intent-match (the Evaluate page queues them)\n"
    worker = _cli(demo, "worker")
    assert worker.returncode == 0, worker.stderr
    assert worker.stdout == "no queued jobs: nothing to run\n"
