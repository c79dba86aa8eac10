"""The event loop that LLM runs use: uvloop where it is installed, else asyncio's own.

A run keeps many calls in flight from one loop; uvloop's loop (libuv, in C) schedules
callbacks and moves socket data for a fraction of the CPU of the pure-Python loop, which
is what bounds a run at high concurrency. ``WORKBENCH_EVENT_LOOP=asyncio`` turns it off.
"""

from __future__ import annotations

import asyncio
import os
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


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on the loop :func:`loop_factory` picks."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coro)
