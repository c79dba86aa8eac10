"""Background work gives way to a page being drawn.

On two cores a page's script run competes for the interpreter with whatever the process
computes in the background (the side panels' figures, imports warming up, the job
worker's start), and so do the server's event loop, which sends the finished page, and
the requests for the page's scripts: every thread that holds the GIL delays them (issue
#47: Home's run ended 0.7 s before the browser heard of it while three such threads had
just started). Work that nobody waits for calls :func:`wait_until_quiet` first: it
returns once no page's run is under way, the last one ended :data:`SETTLE_S` ago and no
HTTP request is being answered (``ui.request_activity`` counts them), or after
``max_wait`` seconds whatever happens. :func:`in_background` runs such work in one lane,
one piece at a time, each when the process is quiet.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager

#: How long after a run's end the server has to itself to send the page's last messages
#: (the browser's requests for the page's scripts that follow are counted as requests).
SETTLE_S = 0.15
#: Background work never waits longer than this (a long page, sessions one after another).
MAX_WAIT_S = 10.0
#: How often a waiting thread looks again while requests are being answered.
POLL_S = 0.01

#: The background lane's thread name.
LANE_THREAD = "workbench-background"

_lock = threading.Lock()
_started = 0.0
_ended = 0.0
_requests = 0
_work: queue.SimpleQueue[tuple[Callable[[], object], Future[None]]] = queue.SimpleQueue()
_lane: threading.Thread | None = None


def run_started() -> None:
    """A page's script run begins (app.py, before the page)."""
    global _started
    with _lock:
        _started = time.monotonic()


def run_ended() -> None:
    """A page's script run is over (app.py, last thing)."""
    global _ended
    with _lock:
        _ended = time.monotonic()


@contextmanager
def page_run() -> Iterator[None]:
    """A page's script run from :func:`run_started` to :func:`run_ended`, however it ends
    (an error, ``st.stop()``, a rerun)."""
    run_started()
    try:
        yield
    finally:
        run_ended()


def request_started() -> None:
    """The server began answering an HTTP request."""
    global _requests
    with _lock:
        _requests += 1


def request_ended() -> None:
    """The server sent an HTTP request's last byte (or gave up on it)."""
    global _requests
    with _lock:
        _requests -= 1


def quiet_in() -> float:
    """Seconds until background work may start (0: now): a run under way or a request
    being answered says to look again shortly; otherwise the rest of the last run's
    :data:`SETTLE_S`."""
    with _lock:
        started, ended, requests = _started, _ended, _requests
    if started > ended:
        return SETTLE_S
    if requests > 0:
        return POLL_S
    return max(0.0, ended + SETTLE_S - time.monotonic())


def wait_until_quiet(max_wait: float = MAX_WAIT_S) -> None:
    """Block (a background thread) until :func:`quiet_in` is 0, ``max_wait`` at most."""
    _wait(quiet_in, max_wait)


def requests_in() -> float:
    """Seconds until no request is being answered, as :func:`quiet_in` but for requests
    only (0 when none is)."""
    with _lock:
        return POLL_S if _requests > 0 else 0.0


def wait_for_requests(max_wait: float) -> None:
    """Block until no HTTP request is being answered, ``max_wait`` at most: the first
    page's warm-up between two imports, while a browser fetches the page's scripts."""
    _wait(requests_in, max_wait)


def in_background(work: Callable[[], object]) -> Future[None]:
    """Run ``work`` in the process's background lane: one daemon thread that takes one
    piece of work at a time, in order, each once the process is quiet
    (:func:`wait_until_quiet`); so a page being drawn competes with one background thread
    at most, and only with one that had started before the page did. The future is done
    when ``work`` returned (its exception is logged and set on the future)."""
    global _lane
    done: Future[None] = Future()
    _work.put((work, done))
    with _lock:
        if _lane is None or not _lane.is_alive():
            _lane = threading.Thread(target=_run_lane, name=LANE_THREAD, daemon=True)
            _lane.start()
    return done


def _run_lane() -> None:
    while True:
        work, done = _work.get()
        wait_until_quiet()
        try:
            work()
        except BaseException as exc:  # one failed piece stops no other
            logging.getLogger(__name__).exception("background work failed")
            done.set_exception(exc)
        else:
            done.set_result(None)


def _wait(pause_for: Callable[[], float], max_wait: float) -> None:
    deadline = time.monotonic() + max_wait
    while (pause := min(pause_for(), deadline - time.monotonic())) > 0:
        time.sleep(pause)
