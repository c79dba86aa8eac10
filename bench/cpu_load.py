"""A CPU load generator for the benchmarks: busy processes until the load average reaches
a target, so that figures can be taken "at load 16" on a small machine.

    with cpu_load(16):
        ...  # measure here; the busy processes end when the block ends

The processes spin in plain Python (no nice level: they compete with the app as other
work on a shared machine would). The 1-minute load average follows slowly, so the
context waits (up to ``settle_s``) for it to come within 10 % of the target.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager


def _spin() -> None:  # pragma: no cover - runs in a child process until terminated
    while True:
        pass


def busy_count(target: float, current: float) -> int:
    """How many busy processes lift a load of ``current`` to ``target``."""
    return max(0, round(target - current))


def running_now() -> float:
    """Processes running or runnable at this moment, this one left out (the 1-minute
    average lags a minute behind: right after other work ended it is still high)."""
    samples = []
    for _ in range(10):  # one look is noisy: the mean of ten over a second
        try:
            with open("/proc/loadavg") as f:
                samples.append(max(0.0, float(f.read().split()[3].split("/")[0]) - 1))
        except (OSError, IndexError, ValueError):
            return os.getloadavg()[0]
        time.sleep(0.1)
    return sum(samples) / len(samples)


@contextmanager
def cpu_load(target: float, settle_s: float = 150.0) -> Iterator[int]:
    """Run busy processes so that the 1-minute load average nears ``target``; yields how
    many were started. ``target`` 0 starts none."""
    if target <= 0:
        yield 0
        return
    n = busy_count(target, running_now())
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_spin, daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    try:
        deadline = time.monotonic() + settle_s
        print(f"load generator: {n} busy processes, waiting for load {target:g} …", flush=True)
        while os.getloadavg()[0] < 0.9 * target and time.monotonic() < deadline:
            time.sleep(2)
        print(f"load generator: load average now {os.getloadavg()[0]:.1f}", flush=True)
        yield n
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(5)


def load_line() -> str:
    """The machine's load averages and CPU count, for printing beside every figure."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min), {os.cpu_count()} CPUs"
