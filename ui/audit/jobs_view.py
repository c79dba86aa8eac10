"""Live view of background evaluator jobs: the process-wide worker and progress cards.

Everything shown is read back from the job rows, so a browser reload, a second tab or
another user sees the same progress. The job list is a fragment that re-reads the rows
every second while a job is active (or was just queued) and reruns the page once the
last one has finished.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pandas as pd
import streamlit as st

from alignment.cost import UNKNOWN
from annotation_store import JobInfo, Store
from common.config import get_setting
from jobs.worker import Worker, job_state, request_cancel, resume_job
from ui.context import get_store
from ui.tables import dash_missing

ACTIVE = ("queued", "running", "cancelling", "stale")
POLL_S = 1.0
WATCH_S = 30.0
WATCH_KEY = "_jobs_watch_until"
FLASH_KEY = "job_flash"
FLASH_ICONS = {"success": ":material/check_circle:", "error": ":material/error:"}
STATE_BADGES = {
    "queued": ":gray-badge[queued]",
    "running": ":blue-badge[running]",
    "cancelling": ":orange-badge[cancelling]",
    "cancelled": ":gray-badge[cancelled]",
    "done": ":green-badge[done]",
    "failed": ":red-badge[failed]",
    "stale": ":red-badge[stale: no heartbeat]",
}


_workers: dict[str, Worker] = {}
_workers_lock = threading.Lock()


def worker_for(store: Store) -> Worker:
    """The process's job worker for ``store``'s database, started on first use (from a
    page's script or the background thread that starts it, ``ui.background``)."""
    with _workers_lock:
        worker = _workers.get(store.url)
        if worker is None:
            worker = _workers[store.url] = Worker(store, max_workers=2).start()
        return worker


def stop_workers() -> None:
    """Stop and forget the process's workers (tests)."""
    with _workers_lock:
        for worker in _workers.values():
            worker.stop()
        _workers.clear()


def in_app_worker_enabled() -> bool:
    """False when ``WORKBENCH_JOBS_IN_APP`` (or secrets ``[jobs] in_app``) is 0 / false:
    jobs are then left to ``python cli.py worker`` processes."""
    value = (get_setting("jobs", "in_app") or "1").strip().lower()
    return value not in ("0", "false", "no", "off")


def start_worker(store: Store) -> Worker | None:
    """``store``'s job worker (see :func:`worker_for`); None when in-app execution is
    switched off."""
    return worker_for(store) if in_app_worker_enabled() else None


def get_worker() -> Worker | None:
    """The server process's job worker (one per database, shared by every session),
    started on first use; None when in-app execution is switched off."""
    return start_worker(get_store())


def progress_text(p: dict[str, Any]) -> str:
    """ "12 / 20 done · 1 failed · 3 cached · 1,234 tokens · $0.0021"; tokens and cost only
    when the run used a model; "price unknown" when it did and its model has no price
    (its results are stored at cost 0, which is not "free")."""
    tokens = int(p.get("tokens_in", 0)) + int(p.get("tokens_out", 0))
    cost = float(p.get("cost", 0.0))
    parts = [
        f"{p.get('done', 0)} / {p.get('total', 0)} done",
        f"{p.get('failed', 0)} failed",
        f"{p.get('cached', 0)} cached",
    ]
    if tokens:
        parts.append(f"{tokens:,} tokens")
    if cost:
        parts.append(f"${cost:.4f}")
    elif tokens:
        parts.append(UNKNOWN)
    return " · ".join(parts)


def job_card(job_id: int) -> None:
    """A bordered card: state, progress bar, counters, and Cancel / Resume buttons."""
    store = get_store()
    job = store.job(job_id)
    if job is None:
        return
    state = job_state(job)
    with st.container(border=True, key=f"job-card-{job_id}"):
        _card_body(job, state)
        if state in ("queued", "running"):
            st.button(
                "Cancel",
                key=f"job-cancel-{job_id}",
                icon=":material/stop_circle:",
                on_click=request_cancel,
                args=(store, job_id),
            )
        elif state in ("stale", "cancelled", "failed"):
            st.button(
                "Resume",
                key=f"job-resume-{job_id}",
                icon=":material/replay:",
                on_click=_resume,
                args=(job_id,),
                help="Queue a new job that evaluates only what has no result yet",
            )


def flash(kind: str, text: str) -> None:
    """Say ``text`` once, as a toast, on the job list's next run (``kind``: "success" or
    "error"); the job cards below carry the job's state from then on."""
    st.session_state[FLASH_KEY] = (kind, text)


def _show_flash() -> None:
    # A toast, shown from inside the fragment: an element at the top of the page would
    # stay through every polling rerun of the fragment (they do not redraw the page), so
    # "Job 3 queued." would outlive the job; and a Resume click reruns only the fragment.
    pending = st.session_state.pop(FLASH_KEY, None)
    if pending:
        kind, text = pending
        st.toast(text, icon=FLASH_ICONS.get(kind), duration="long" if kind == "error" else "short")


def watch_jobs(seconds: float = WATCH_S) -> None:
    """Keep re-reading the job list for a while (a job was just queued: the worker may
    finish it before the page would otherwise look again)."""
    st.session_state[WATCH_KEY] = time.time() + seconds


def active_jobs(jobs: list[JobInfo]) -> list[JobInfo]:
    """The jobs not finished yet (queued, running, cancelling, stale)."""
    return [j for j in jobs if job_state(j) in ACTIVE]


def jobs_section(project: str) -> None:
    """Running jobs and the history, re-read every second while a job is active or was
    just queued, so queued -> running -> finished shows without a reload."""
    watching = bool(active_jobs(get_store().jobs(project))) or _watch_window_open()
    st.fragment(run_every=POLL_S if watching else None)(_jobs_body)(project, watching)


def _watch_window_open() -> bool:
    return time.time() < st.session_state.get(WATCH_KEY, 0.0)


def _jobs_body(project: str, polling: bool) -> None:
    _show_flash()
    jobs = get_store().jobs(project)
    active = active_jobs(jobs)
    st.subheader("Running", anchor=False)
    if not active:
        st.caption("No job running.")
    for job in active:
        job_card(job.id)
    finished = [j for j in jobs if j not in active]
    if finished:
        st.subheader("History", anchor=False)
        for job in finished[:3]:
            job_card(job.id)
        if len(finished) > 3:
            _older_jobs(finished[3:])
    if polling and not active and not _watch_window_open():
        st.rerun(scope="app")  # stop polling; the rest of the page shows the new results


def _older_jobs(jobs: list[JobInfo]) -> None:
    frame = pd.DataFrame(
        [
            {
                "job": j.id,
                "state": job_state(j),
                "evaluators": ", ".join(j.params.get("evaluators") or []),
                "progress": progress_text(j.progress),
                "by": j.created_by,
                "created": j.created_at,
                "finished": j.finished_at,
            }
            for j in jobs
        ]
    )
    with st.expander(f"Older jobs ({len(frame)})"):
        table, config = dash_missing(frame, why="not recorded")
        st.dataframe(table, hide_index=True, width="stretch", column_config=config)


def _resume(job_id: int) -> None:
    store = get_store()
    user = st.session_state.get("user")
    try:
        new_id = resume_job(store, job_id, created_by=getattr(user, "name", None))
    except ValueError as exc:
        flash("error", str(exc))
        return
    worker = get_worker()
    if worker is not None:
        worker.wake()
    flash("success", f"Job {job_id} resumed as job {new_id}.")


def _card_body(job: JobInfo, state: str) -> None:
    """The job's title line, progress bar and what it is doing now."""
    job_id = job.id
    p = job.progress
    params = job.params
    names = ", ".join(params.get("evaluators") or [])
    resumed = f" · resumes job {params['resume_of']}" if params.get("resume_of") else ""
    st.markdown(
        f"**Job {job_id}** {STATE_BADGES.get(state, state)} · {names}{resumed}",
        help=f"created by {job.created_by or '?'} at {job.created_at:%H:%M:%S}",
    )
    total = int(p.get("total") or 0)
    done = int(p.get("done") or 0)
    st.progress(min(done / total, 1.0) if total else 0.0, text=progress_text(p) + _now(p, state))
    if state == "stale":
        st.warning(
            "The worker running this job stopped (no heartbeat for a while). "
            "Resume it to finish the remaining items.",
            icon=":material/heart_broken:",
        )
    for name, per in (p.get("evaluators") or {}).items():
        summary = (per.get("batch") or {}).get("summary")
        if summary:  # batch mode: batch ids, failed lines, reported usage and cost
            st.caption(f"{name}: {summary} (batch status: {per['batch'].get('status', '?')})")
    if job.error and state in ("failed", "done", "cancelled"):
        st.caption(f":red[{job.error.splitlines()[0]}]")


def _now(p: dict[str, Any], state: str) -> str:
    """ " · now: ser (loading model)" while a job runs; "" otherwise."""
    current = p.get("current")
    if state != "running":
        return ""
    if not current:
        return " · starting"
    phase = ((p.get("evaluators") or {}).get(current) or {}).get("phase")
    return f" · now: {current}" + (f" ({phase})" if phase else "")
