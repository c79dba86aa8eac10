"""The event loop that LLM runs use: uvloop where it is installed, else asyncio's own.

A run keeps many calls in flight from one loop; uvloop's loop (libuv, in C) schedules
callbacks and moves socket data for a fraction of the CPU of the pure-Python loop, which
is what bounds a run at high concurrency. ``WORKBENCH_EVENT_LOOP=asyncio`` turns it off.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor, or None for asyncio's default loop."""
    if os.environ.get("WORKBENCH_EVENT_LOOP", "").strip().lower() == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:  # not on Windows, or not installed
        return None
    return uvloop.new_event_loop


def _run_here(coro: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coro)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on the loop :func:`loop_factory` picks.

    Called while a loop is already running in this thread (a Jupyter cell, an async
    host), the coroutine runs to completion on its own loop in a worker thread: the
    caller's loop cannot be re-entered, and this call is synchronous by contract.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(coro)
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = _run_here(coro)
        except BaseException as error:  # re-raised in the caller's thread below
            outcome["error"] = error

    worker = threading.Thread(target=work, name="workbench-event-loop")
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
