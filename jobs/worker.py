"""Background evaluator jobs: queue, claim, execute, heartbeat, cancel, resume.

A job is a row in the store (``create_job``); everything a page shows about it is read
back from that row, so a browser reload (or another user) sees the same progress.

Life of a job::

    queued --claim--> running --(all evaluators finished)--> done | failed
                         |--request_cancel--> cancelling --(next batch)--> cancelled

- **Claiming** happens in the store (:meth:`Store.claim_job`: row locks on PostgreSQL,
  the write lock on SQLite), so the app servers' in-process :class:`Worker` and any
  number of ``python cli.py worker`` processes can share one queue.
- **Lease and heartbeat**: the claiming worker's name is stored with the job, and while
  the job executes a small thread renews the lease every few seconds. A held job whose
  heartbeat is older than the lease (:func:`lease_seconds`, ``WORKBENCH_JOBS_LEASE_S``)
  has lost its worker: :func:`job_state` calls it ``stale`` and the next worker that
  polls takes it over, skipping every item the job's runs already stored, so no item is
  evaluated twice. A worker that finds its lease taken stops at the next batch.
- **Resume** (:func:`resume_job`) queues a new job with the same parameters and
  ``only_missing`` set: the runner skips every (item, run index) that already has a
  successful result with the same evaluator signature, so finished work is never paid
  for twice. A stale job is closed as ``failed`` when it is resumed.

Job parameters (``params``)::

    {"evaluators": ["bleu", "bifact"],      # names from the evaluator registry
     "runs": None | int,                    # None: each evaluator's default
     "subset": {"mode": "all" | "first" | "split" | "ids",
                "n": 20, "split": "test", "ids": ["a", "b"]},
     "only_missing": False,                 # skip items that already have a result
     "settings": {"bifact": {...}},         # per-evaluator settings
     "batch_size": None | int,             # None: each evaluator's default
     "mode": "online" | "batch",           # batch: LLM judges use the OpenAI Batch API
     "resume_of": None}
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import traceback
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from annotation_store import JobInfo, Store
from annotation_store.records import utcnow
from evaluators.base import NotConfiguredError
from evaluators.registry import get_evaluator_class
from jobs.run_heartbeat import lease_seconds
from jobs.runner import MODES, RunProgress, batch_capable, build_context, run_evaluator

log = logging.getLogger(__name__)

HEARTBEAT_S = 2.0
ACTIVE = ("queued", "running", "cancelling")
FINISHED = ("done", "failed", "cancelled")
SUBSET_MODES = ("all", "first", "split", "ids")
COUNTERS = ("total", "done", "failed", "cached", "tokens_in", "tokens_out", "cost")


# -- queueing -------------------------------------------------------------------------------
def evaluate_params(
    evaluators: Sequence[str],
    *,
    runs: int | None = None,
    subset: Mapping[str, Any] | None = None,
    only_missing: bool = False,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    batch_size: int | None = None,
    resume_of: int | None = None,
    mode: str = "online",
) -> dict[str, Any]:
    """Checked job parameters for an evaluate job (see the module docstring)."""
    if not evaluators:
        raise ValueError("choose at least one evaluator")
    for name in evaluators:
        get_evaluator_class(name)  # raises with the known names
    subset = dict(subset or {"mode": "all"})
    if subset.get("mode", "all") not in SUBSET_MODES:
        raise ValueError(f"subset mode must be one of {SUBSET_MODES}")
    if runs is not None and runs < 1:
        raise ValueError("runs must be at least 1")
    if mode not in MODES:
        raise ValueError(f"run mode must be one of {MODES}")
    return {
        "evaluators": list(evaluators),
        "runs": runs,
        "subset": subset,
        "only_missing": bool(only_missing),
        "settings": {k: dict(v) for k, v in (settings or {}).items()},
        "batch_size": max(1, int(batch_size)) if batch_size else None,
        "mode": mode,
        "resume_of": resume_of,
    }


def submit_evaluate_job(
    store: Store, project: str, params: Mapping[str, Any], created_by: str | None = None
) -> int:
    """Queue an evaluate job; a running :class:`Worker` picks it up."""
    info = store.project(project)
    for name in params["evaluators"]:
        cls = get_evaluator_class(name)
        if not cls.applies_to(info.kind) and not getattr(cls, "panel", False):
            raise ValueError(f"evaluator {name!r} does not apply to kind {info.kind!r}")
    return store.create_job(project, dict(params), kind="evaluate", created_by=created_by)


def request_cancel(store: Store, job_id: int) -> JobInfo:
    """Ask a job to stop: queued jobs are cancelled at once, running ones at the next batch."""
    job = _job(store, job_id)
    if job.status == "queued":
        return store.update_job(job_id, status="cancelled", finished_at=utcnow())
    if job.status == "running":
        return store.update_job(job_id, status="cancelling")
    return job


def resume_job(store: Store, job_id: int, created_by: str | None = None) -> int:
    """Queue a job that finishes ``job_id``'s work (only what has no result yet).

    A stale job (its worker is gone) is closed as failed and its open runs as cancelled.
    """
    job = _job(store, job_id)
    state = job_state(job)
    if state in ("queued", "running", "cancelling"):
        raise ValueError(f"job {job_id} is {state}; cancel it or wait before resuming")
    if state == "stale":
        _close_stale(store, job)
    params = {**job.params, "only_missing": True, "resume_of": job_id}
    return store.create_job(
        _project_name(store, job.project_id),
        params,
        kind=job.kind,
        created_by=created_by or job.created_by,
    )


def worker_name() -> str:
    """This process's name on the jobs it claims: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def job_state(job: JobInfo, now: datetime | None = None, stale_after_s: float | None = None) -> str:
    """The job's status, or ``stale`` for a running job whose worker stopped beating."""
    if job.status in ("running", "cancelling"):
        beat = job.heartbeat_at or job.started_at
        now = now or utcnow()
        limit = timedelta(seconds=stale_after_s or lease_seconds())
        if beat is None or now - _naive(beat) > limit:
            return "stale"
    return job.status


def _naive(ts: datetime) -> datetime:
    """Timestamps are stored as naive UTC; drop a timezone a driver may have added."""
    return ts.replace(tzinfo=None) if ts.tzinfo is not None else ts


def _job(store: Store, job_id: int) -> JobInfo:
    job = store.job(job_id)
    if job is None:
        raise ValueError(f"no job {job_id}")
    return job


def _project_name(store: Store, project_id: int) -> str:
    for p in store.projects():
        if p.id == project_id:
            return p.name
    raise ValueError(f"no project with id {project_id}")


def _close_stale(store: Store, job: JobInfo) -> None:
    store.update_job(
        job.id,
        status="failed",
        finished_at=utcnow(),
        error="the worker stopped (no heartbeat); resumed as a new job",
    )
    store.close_open_runs(job.id)


# -- claiming and executing -----------------------------------------------------------------
def claim_next(store: Store, worker: str | None = None) -> int | None:
    """Claim the oldest queued (or abandoned) job for this worker; return its id (or None)."""
    job = store.claim_job(worker or worker_name(), lease_seconds())
    return job.id if job else None


def resolve_subset(
    store: Store, project: str, subset: Mapping[str, Any]
) -> tuple[list[str] | None, int | None]:
    """(item ids, limit) for the runner from a subset spec."""
    mode = subset.get("mode", "all")
    if mode == "first":
        return None, int(subset.get("n") or 0) or None
    if mode == "split":
        wanted = subset.get("split")
        return [it.item_id for it in store.items(project) if it.split == wanted], None
    if mode == "ids":
        return [str(i) for i in subset.get("ids") or []], None
    return None, None


def execute_job(store: Store, job_id: int, heartbeat_s: float | None = None) -> JobInfo:
    """Run a claimed (running) evaluate job to its end; returns the final job.

    A job claimed again after its worker died skips what its earlier runs stored. When
    another worker takes the job over meanwhile (this one was too slow to renew the
    lease), this one stops at the next batch and leaves the job to the new owner.
    """
    job = _job(store, job_id)
    project = _project_name(store, job.project_id)
    params = job.params
    takeover = job.attempts > 1
    # At least three beats per lease, so one slow write does not cost the job.
    heartbeat_s = heartbeat_s or min(HEARTBEAT_S, lease_seconds() / 3)
    stop, lost = threading.Event(), threading.Event()
    beat = threading.Thread(
        target=_heartbeat,
        args=(store, job, stop, lost, heartbeat_s),
        name=f"job-{job_id}-heartbeat",
        daemon=True,
    )
    beat.start()
    errors: list[str] = []
    cancelled = False
    try:
        item_ids, limit = resolve_subset(store, project, params.get("subset") or {})
        n_items = len(item_ids) if item_ids is not None else store.item_count(project)
        n_items = min(n_items, limit) if limit else n_items
        per: dict[str, dict[str, Any]] = {}
        for name in params["evaluators"]:
            runs = params.get("runs") or get_evaluator_class(name).default_runs
            per[name] = {**RunProgress(total=n_items * runs).as_dict(), "status": "queued"}
        store.update_job(job_id, progress=_totals(per, None))
        ctx = build_context(store)
        for name in params["evaluators"]:
            if _status(store, job_id) == "cancelling":
                cancelled = True
                break
            per[name]["status"] = "running"
            # Until the first batch is stored, say what takes the time (a local model
            # loads for seconds to minutes before anything is counted).
            per[name]["phase"] = first_phase(name)
            store.update_job(job_id, progress=_totals(per, name))

            def report(p: RunProgress, name: str = name) -> None:
                per[name] = {**p.as_dict(), "status": "running", "phase": "evaluating"}
                if not lost.is_set():
                    store.update_job(job_id, progress=_totals(per, name))

            try:
                final = run_evaluator(
                    store,
                    project,
                    name,
                    runs=params.get("runs"),
                    item_ids=item_ids,
                    limit=limit,
                    settings=(params.get("settings") or {}).get(name),
                    ctx=ctx,
                    job_id=job_id,
                    batch_size=params.get("batch_size") or None,
                    on_progress=report,
                    should_cancel=lambda: lost.is_set() or _status(store, job_id) == "cancelling",
                    skip_existing=bool(params.get("only_missing")),
                    # batch mode is for LLM judges; other evaluators in the job run as usual
                    mode=params.get("mode", "online")
                    if batch_capable(get_evaluator_class(name))
                    else "online",
                    skip_job_results=takeover,
                )
            except (NotConfiguredError, ValueError) as exc:
                per[name]["status"] = "failed"
                per[name]["error"] = str(exc)
                errors.append(f"{name}: {exc}")
                continue
            stopped = final.done < final.total
            per[name] = {**final.as_dict(), "status": "cancelled" if stopped else "done"}
            store.update_job(job_id, progress=_totals(per, None))
            if stopped:
                cancelled = True
                break
        if lost.is_set():  # another worker holds the job now: its row is not ours to end
            return _job(store, job_id)
        status = "cancelled" if cancelled else ("failed" if errors else "done")
        return store.update_job(
            job_id,
            status=status,
            finished_at=utcnow(),
            error="; ".join(errors) or None,
            progress=_totals(per, None),
        )
    except Exception as exc:  # a bug must end the job as failed, not leave it "running"
        log.exception("job %s failed", job_id)
        return store.update_job(
            job_id,
            status="failed",
            finished_at=utcnow(),
            error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}",
        )
    finally:
        stop.set()


def first_phase(name: str) -> str:
    """What an evaluator does before its first results: load a model, or ask the LLM."""
    return "waiting for the LLM" if get_evaluator_class(name).requires_llm else "loading model"


def _status(store: Store, job_id: int) -> str:
    job = store.job(job_id)
    return job.status if job else "cancelling"


def _totals(per: Mapping[str, Mapping[str, Any]], current: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {k: sum(p.get(k, 0) for p in per.values()) for k in COUNTERS}
    out["cost"] = round(float(out["cost"]), 6)
    out["current"] = current
    out["evaluators"] = {k: dict(v) for k, v in per.items()}
    return out


def _heartbeat(
    store: Store, job: JobInfo, stop: threading.Event, lost: threading.Event, every_s: float
) -> None:
    """Renew the job's lease until ``stop``; set ``lost`` when another worker took it."""
    while not stop.wait(every_s):
        try:
            if job.claimed_by is None:  # executed without a claim (tests, direct calls)
                store.update_job(job.id, heartbeat_at=utcnow())
            elif not store.renew_lease(job.id, job.claimed_by):
                if _status(store, job.id) in ("running", "cancelling"):
                    log.warning("job %s: the lease passed to another worker", job.id)
                    lost.set()
                return
        except Exception:  # the next beat retries; a DB hiccup must not kill the job
            log.warning("heartbeat of job %s failed", job.id, exc_info=True)


def drain(store: Store, max_jobs: int | None = None) -> list[int]:
    """Claim and execute queued jobs one by one until none is left; returns their ids."""
    done: list[int] = []
    while max_jobs is None or len(done) < max_jobs:
        job_id = claim_next(store)
        if job_id is None:
            break
        execute_job(store, job_id)
        done.append(job_id)
    return done


# -- the in-process worker --------------------------------------------------------------------
class Worker:
    """A process-wide pool that polls the queue and executes jobs off the page's thread.

    The app starts one per server process (``st.cache_resource``); ``wake()`` makes it
    look at the queue at once instead of at the next poll.
    """

    def __init__(self, store: Store, max_workers: int = 2, poll_s: float = 1.0) -> None:
        self.store = store
        self.max_workers = max_workers
        self.poll_s = poll_s
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="job")
        self._active: set[int] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="job-poller", daemon=True)

    def start(self) -> Worker:
        """Start polling (idempotent)."""
        if not self._thread.is_alive():
            self._thread.start()
        return self

    def wake(self) -> None:
        """Look at the queue now."""
        self._wake.set()

    def stop(self, wait: bool = True) -> None:
        """Stop polling; with ``wait``, let running jobs finish."""
        self._stop.set()
        self._wake.set()
        self._pool.shutdown(wait=wait)

    @property
    def active(self) -> set[int]:
        """Ids of the jobs executing in this process."""
        with self._lock:
            return set(self._active)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                while len(self.active) < self.max_workers:
                    job_id = claim_next(self.store)
                    if job_id is None:
                        break
                    with self._lock:
                        self._active.add(job_id)
                    self._pool.submit(self._execute, job_id)
            except Exception:  # keep polling after a transient database error
                log.warning("job poller failed", exc_info=True)
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def _execute(self, job_id: int) -> None:
        try:
            execute_job(self.store, job_id)
        finally:
            with self._lock:
                self._active.discard(job_id)
            self._wake.set()
