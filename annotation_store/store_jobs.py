"""Store operations on background jobs: queue, read, update, and claim under a lease.

Claiming is the one place where several processes (app servers' in-process workers and
``python cli.py worker``) race for the same rows, so it lives here, beside the database:
on PostgreSQL the candidate row is locked with ``FOR UPDATE SKIP LOCKED`` (a second
worker skips it instead of waiting), on SQLite the write session's ``BEGIN IMMEDIATE``
serialises claimers. A claimed job carries its worker's name and a lease that lasts while
the worker stamps ``heartbeat_at``; a job whose lease lapsed (the worker was killed) is
claimed again by the next worker that polls.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update

from annotation_store.models import EvaluatorResult, EvaluatorRun, Item, Job, utcnow
from annotation_store.records import JobInfo
from annotation_store.store_base import StoreBase
from common.redact import redact_data

JOB_FIELDS = ("status", "progress", "error", "started_at", "finished_at", "heartbeat_at")
HELD = ("running", "cancelling")


def job_info(job: Job) -> JobInfo:
    """The frozen record of a job row."""
    return JobInfo(
        id=job.id,
        project_id=job.project_id,
        kind=job.kind,
        params=dict(job.params or {}),
        status=job.status,
        progress=dict(job.progress or {}),
        error=job.error,
        created_by=job.created_by,
        created_at=job.created_at,
        started_at=job.started_at,
        finished_at=job.finished_at,
        heartbeat_at=job.heartbeat_at,
        claimed_by=job.claimed_by,
        attempts=int(job.attempts or 0),
    )


def _claimable(lapsed_before: datetime) -> Any:
    """Queued jobs, and held jobs whose worker stopped renewing the lease."""
    lapsed = and_(
        Job.status.in_(HELD),
        or_(Job.heartbeat_at.is_(None), Job.heartbeat_at < lapsed_before),
    )
    return or_(Job.status == "queued", lapsed)


class JobsMixin(StoreBase):
    """Background jobs and their leases."""

    def create_job(
        self,
        project: str,
        params: Mapping[str, Any],
        kind: str = "evaluate",
        created_by: str | None = None,
    ) -> int:
        """Queue a job and return its id."""
        with self.write() as s:
            pid = self._project_row(s, project).id
            job = Job(
                project_id=pid,
                kind=kind,
                params=dict(params),
                status="queued",
                progress={},
                created_by=created_by,
            )
            s.add(job)
            s.flush()
            return job.id

    def job(self, job_id: int) -> JobInfo | None:
        """A job, or None."""
        with self.read() as s:
            row = s.get(Job, job_id)
            return job_info(row) if row else None

    def jobs(self, project: str) -> list[JobInfo]:
        """Every job of a project, newest first."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            q = select(Job).where(Job.project_id == pid).order_by(Job.id.desc())
            return [job_info(j) for j in s.scalars(q)]

    def update_job(self, job_id: int, **changes: Any) -> JobInfo:
        """Change a job's status, progress (merged), error or timestamps."""
        unknown = set(changes) - set(JOB_FIELDS)
        if unknown:
            raise ValueError(f"cannot update job fields {sorted(unknown)}")
        with self.write() as s:
            row = s.get(Job, job_id)
            if row is None:
                raise ValueError(f"no job {job_id}")
            for key, value in changes.items():
                value = redact_data(value)  # job errors quote evaluator errors
                if key == "progress":
                    row.progress = {**(row.progress or {}), **value}
                else:
                    setattr(row, key, value)
            return job_info(row)

    def claim_job(self, worker: str, lease_s: float, now: datetime | None = None) -> JobInfo | None:
        """Take the oldest claimable job for ``worker``; None when there is none.

        A queued job becomes ``running``. A held job whose lease lapsed is taken over
        (``attempts`` grows, the dead worker's open runs are closed as cancelled); one that
        was being cancelled is closed as ``cancelled`` instead of run again.
        """
        now = now or utcnow()
        lapsed_before = now - timedelta(seconds=lease_s)
        # A plain read first: workers poll every second or two, and an idle queue must not
        # take SQLite's write lock (annotators' label saves would queue behind it).
        with self.read() as s:
            if s.scalar(select(Job.id).where(_claimable(lapsed_before)).limit(1)) is None:
                return None
        while True:
            with self.write() as s:
                q = select(Job).where(_claimable(lapsed_before)).order_by(Job.id).limit(1)
                if not self.is_sqlite:
                    q = q.with_for_update(skip_locked=True)
                job = s.scalar(q)
                if job is None:
                    return None
                if job.status != "queued":
                    _close_open_runs(s, job.id)
                if job.status == "cancelling":
                    job.status, job.finished_at, job.claimed_by = "cancelled", now, None
                    continue
                job.status, job.heartbeat_at, job.claimed_by = "running", now, worker
                job.started_at = job.started_at or now
                job.attempts = int(job.attempts or 0) + 1
                return job_info(job)

    def renew_lease(self, job_id: int, worker: str, now: datetime | None = None) -> bool:
        """Stamp the heartbeat of a job ``worker`` holds; False when it lost the lease."""
        with self.write() as s:
            done = s.execute(
                update(Job)
                .where(Job.id == job_id, Job.claimed_by == worker, Job.status.in_(HELD))
                .values(heartbeat_at=now or utcnow())
            )
            return bool(done.rowcount)

    def job_result_keys(self, job_id: int, signature_text: str) -> set[tuple[str, int]]:
        """(item id, run index) of every result (ok or failed) the job's runs stored."""
        with self.read() as s:
            rows = s.execute(
                select(Item.item_id, EvaluatorRun.run_index)
                .join(EvaluatorResult, EvaluatorResult.item_pk == Item.id)
                .join(EvaluatorRun, EvaluatorRun.id == EvaluatorResult.run_id)
                .where(EvaluatorRun.job_id == job_id, EvaluatorRun.signature_text == signature_text)
            )
            return {(str(i), int(r)) for i, r in rows}

    def close_open_runs(self, job_id: int) -> None:
        """End a job's runs that are still open (as cancelled): its worker is gone."""
        with self.write() as s:
            _close_open_runs(s, job_id)


def _close_open_runs(s: Any, job_id: int) -> None:
    s.execute(
        update(EvaluatorRun)
        .where(EvaluatorRun.job_id == job_id, EvaluatorRun.status == "running")
        .values(status="cancelled", finished_at=utcnow())
    )
