"""A running evaluator run proves it is alive; a run whose process died shows ``stopped``.

While :func:`jobs.runner.run_evaluator` works, a small thread stamps the open runs'
``heartbeat_at`` every few seconds. A ``running`` run without a stamp for longer than the
job lease (``WORKBENCH_JOBS_LEASE_S``) lost its process (``kill -9``, a closed laptop):
:func:`run_state` calls it ``stopped``, and the next run over the project closes it as
``stopped`` for good. Its stored results stay; a resume evaluates only the rest.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta

from annotation_store import RunInfo, Store
from annotation_store.records import utcnow
from common.config import get_setting

log = logging.getLogger(__name__)
#: A heartbeat older than this (seconds) means the worker or run stopped.
STALE_AFTER_S = 30.0


def lease_seconds() -> float:
    """How long a job (or a run) stays with its worker without a heartbeat
    (``WORKBENCH_JOBS_LEASE_S``)."""
    value = get_setting("jobs", "lease_s")
    try:
        return max(1.0, float(value)) if value else STALE_AFTER_S
    except ValueError:
        return STALE_AFTER_S


def stale_after_s() -> float:
    """How long a run may go without a heartbeat before it counts as stopped."""
    return lease_seconds()


def run_state(run: RunInfo, now: datetime | None = None, stale_s: float | None = None) -> str:
    """The run's status, or ``stopped`` for a running run whose process stopped beating."""
    if run.status != "running" or run.source != "run":
        return run.status
    beat = run.heartbeat_at or run.created_at
    limit = timedelta(seconds=stale_s if stale_s is not None else stale_after_s())
    return "stopped" if (now or utcnow()) - beat > limit else "running"


@contextlib.contextmanager
def beating(store: Store, run_ids: list[int], every_s: float | None = None) -> Iterator[None]:
    """Stamp the runs in ``run_ids`` (a list the caller appends to) until the block ends."""
    every = every_s or max(0.5, min(5.0, stale_after_s() / 3))
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            try:
                store.beat_runs(list(run_ids))
            except Exception:  # the next beat retries; a DB hiccup must not kill the run
                log.warning("heartbeat of runs %s failed", run_ids, exc_info=True)

    thread = threading.Thread(target=beat, name="run-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=every + 5)
