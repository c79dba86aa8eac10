"""Live view of background evaluator jobs: the process-wide worker and progress cards.

Everything shown is read back from the job's row, so a browser reload, a second tab or
another user sees the same progress; the card re-reads the row every second in a
read-only fragment and reruns the page once the job has finished.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation_store import Store
from common.config import get_setting
from jobs.worker import FINISHED, Worker, job_state, request_cancel, resume_job
from ui.context import get_store

STATE_BADGES = {
    "queued": ":gray-badge[queued]",
    "running": ":blue-badge[running]",
    "cancelling": ":orange-badge[cancelling]",
    "cancelled": ":gray-badge[cancelled]",
    "done": ":green-badge[done]",
    "failed": ":red-badge[failed]",
    "stale": ":red-badge[stale: no heartbeat]",
}


@st.cache_resource(show_spinner=False)
def _worker_for(url: str, _store: Store) -> Worker:
    return Worker(_store, max_workers=2).start()


def in_app_worker_enabled() -> bool:
    """False when ``WORKBENCH_JOBS_IN_APP`` (or secrets ``[jobs] in_app``) is 0 / false:
    jobs are then left to ``python cli.py worker`` processes."""
    value = (get_setting("jobs", "in_app") or "1").strip().lower()
    return value not in ("0", "false", "no", "off")


def get_worker() -> Worker | None:
    """The server process's job worker (one per database, shared by every session),
    started on first use; None when in-app execution is switched off."""
    if not in_app_worker_enabled():
        return None
    store = get_store()
    return _worker_for(store.url, store)


def progress_text(p: dict[str, Any]) -> str:
    """ "12 / 20 done · 1 failed · 3 cached · 1,234 tokens · $0.0021"."""
    tokens = int(p.get("tokens_in", 0)) + int(p.get("tokens_out", 0))
    return (
        f"{p.get('done', 0)} / {p.get('total', 0)} done · {p.get('failed', 0)} failed · "
        f"{p.get('cached', 0)} cached · {tokens:,} tokens · ${float(p.get('cost', 0.0)):.4f}"
    )


def job_card(job_id: int) -> None:
    """A bordered card: state, progress bar, counters, and Cancel / Resume buttons."""
    store = get_store()
    job = store.job(job_id)
    if job is None:
        return
    state = job_state(job)
    with st.container(border=True, key=f"job-card-{job_id}"):
        _live(job_id, state)
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


def _resume(job_id: int) -> None:
    store = get_store()
    user = st.session_state.get("user")
    try:
        new_id = resume_job(store, job_id, created_by=getattr(user, "name", None))
    except ValueError as exc:
        st.session_state["job_flash"] = ("error", str(exc))
        return
    worker = get_worker()
    if worker is not None:
        worker.wake()
    st.session_state["job_flash"] = ("success", f"Job {job_id} resumed as job {new_id}.")


@st.fragment(run_every=1.0)
def _live(job_id: int, shown_state: str) -> None:
    """Re-read the job row every second (read-only: no widgets in here)."""
    job = get_store().job(job_id)
    if job is None:
        return
    state = job_state(job)
    p = job.get("progress") or {}
    params = job.get("params") or {}
    names = ", ".join(params.get("evaluators") or [])
    resumed = f" · resumes job {params['resume_of']}" if params.get("resume_of") else ""
    st.markdown(
        f"**Job {job_id}** {STATE_BADGES.get(state, state)} · {names}{resumed}",
        help=f"created by {job.get('created_by') or '?'} at {job.get('created_at'):%H:%M:%S}",
    )
    total = int(p.get("total") or 0)
    done = int(p.get("done") or 0)
    current = f" · now: {p['current']}" if p.get("current") and state == "running" else ""
    st.progress(min(done / total, 1.0) if total else 0.0, text=progress_text(p) + current)
    if state == "stale":
        st.warning(
            "The worker running this job stopped (no heartbeat for a while). "
            "Resume it to finish the remaining items.",
            icon=":material/heart_broken:",
        )
    if job.get("error") and state in ("failed", "done", "cancelled"):
        st.caption(f":red[{job['error'].splitlines()[0]}]")
    if state != shown_state and (state in FINISHED or shown_state == "queued"):
        st.rerun(scope="app")  # swap the buttons (Cancel -> Resume) once the state changes
