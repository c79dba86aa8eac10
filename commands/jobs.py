"""``jobs`` (list, cancel, resume background jobs) and ``worker`` (run queued jobs headless)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from commands import CommandError
from commands.numbers import positive_int, positive_number

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the jobs and worker commands."""
    p = sub.add_parser("jobs", help="list a project's background jobs; cancel or resume one")
    p.add_argument("name", help="project name")
    p.add_argument("--cancel", type=positive_int, metavar="ID", help="ask job ID to stop")
    p.add_argument(
        "--resume",
        type=positive_int,
        metavar="ID",
        help="queue a job finishing what job ID left undone",
    )
    p.set_defaults(handler=cmd_jobs)
    w = sub.add_parser("worker", help="execute queued jobs (the app's queue) without the app")
    w.add_argument("--watch", action="store_true", help="keep polling for new jobs")
    w.add_argument(
        "--poll", type=positive_number, default=2.0, help="seconds between polls (--watch)"
    )
    w.set_defaults(handler=cmd_worker)


def cmd_jobs(args: argparse.Namespace, store: Store) -> int:
    """List jobs, or cancel / resume one."""
    from jobs.worker import job_state, request_cancel, resume_job

    try:
        if args.cancel is not None:
            job = request_cancel(store, args.cancel)
            print(f"job {args.cancel}: {job.status}")
            return 0
        if args.resume is not None:
            print(f"job {args.resume} resumed as job {resume_job(store, args.resume)} (queued)")
            return 0
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    listed = store.jobs(args.name)
    if not listed:
        where = f" for {args.name}" if args.name else ""
        print(f"no jobs{where} (the Evaluate page queues them)")
    for job in listed:
        p = job.progress
        print(
            f"{job.id:>5}  {job_state(job):<10} {', '.join(job.params.get('evaluators') or [])}"
            f"  {p.get('done', 0)}/{p.get('total', 0)} done, {p.get('failed', 0)} failed, "
            f"{p.get('cached', 0)} cached, ${float(p.get('cost', 0.0)):.4f}"
        )
    return 0


def cmd_worker(args: argparse.Namespace, store: Store) -> int:
    """Claim and execute queued jobs one by one (until none is left, or forever)."""
    from jobs.worker import claim_next, execute_job

    ran = 0
    while True:
        job_id = claim_next(store)
        if job_id is None:
            if not args.watch:
                print(f"{ran} job(s) run; none queued" if ran else "no queued jobs: nothing to run")
                return 0
            time.sleep(args.poll)
            continue
        print(f"job {job_id}: running", flush=True)
        job = execute_job(store, job_id)
        ran += 1
        p = job.progress
        print(
            f"job {job_id}: {job.status} ({p.get('done', 0)}/{p.get('total', 0)} done, "
            f"{p.get('failed', 0)} failed)",
            flush=True,
        )
