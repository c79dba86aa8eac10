"""The meta-evaluation's independent pieces (each row's figures, each pair's permutation
tests) on several processes.

Every piece draws from its own seed (the row's, ``seed + 1000 * pair``), so the results
do not depend on how many processes compute them or in which order. Workers are forked:
they start with the parent's modules and data, nothing is imported again, and only each
piece's arguments and results cross a pipe. The command line uses them; a library caller
(a web server with threads, where forking is unsafe) keeps the default of one process.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def can_fork() -> bool:
    """Whether worker processes can be forked here (Linux, not Windows or macOS' default)."""
    return "fork" in multiprocessing.get_all_start_methods()


def default_workers(limit: int = 2) -> int:
    """The CPUs this process may run on, at most ``limit``; 1 where it cannot fork."""
    if not can_fork():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity call on this platform
        cpus = os.cpu_count() or 1
    return max(1, min(limit, cpus))


def idle_workers(limit: int = 2) -> int:
    """``default_workers(limit)`` when the machine has a CPU to spare (one-minute load
    average at least half a CPU below the CPUs this process may use) and this process
    runs no other thread, else 1: a second process shortens the wall time only where a
    core is idle, and costs CPU where not."""
    cpus = default_workers(limit)
    if cpus <= 1 or threading.active_count() > 1:  # forking beside other threads is unsafe
        return 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return 1
    return cpus if load < cpus - 0.5 else 1


def run_all(fn: Callable[[T], R], tasks: Sequence[T], workers: int) -> list[R]:
    """``[fn(t) for t in tasks]``, on up to ``workers`` forked processes when there are
    two or more tasks. ``fn`` must be a module-level function; tasks go out one at a
    time, in order, so put the costly ones first."""
    if workers <= 1 or len(tasks) < 2 or not can_fork():
        return [fn(t) for t in tasks]
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=context) as pool:
        return list(pool.map(fn, tasks))
