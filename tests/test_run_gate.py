"""common.run_gate: background work waits for the page being drawn (issue #47 point 4).

The clock is the module's own ``time.monotonic``, set by each test: no test here waits.
"""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from common import run_gate


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock(100.0)
    monkeypatch.setattr(run_gate.time, "monotonic", clock.monotonic)
    monkeypatch.setattr(run_gate.time, "sleep", clock.sleep)
    monkeypatch.setattr(run_gate, "_started", 0.0)
    monkeypatch.setattr(run_gate, "_ended", 0.0)
    monkeypatch.setattr(run_gate, "_requests", 0)
    return clock


def test_quiet_before_any_run_and_a_settle_after_each(clock: Clock) -> None:
    assert run_gate.quiet_in() == 0.0  # a fresh server: nothing to give way to
    run_gate.run_started()
    assert run_gate.quiet_in() == run_gate.SETTLE_S  # a run under way: look again later
    clock.now += 5.0  # however long the run takes
    assert run_gate.quiet_in() == run_gate.SETTLE_S
    run_gate.run_ended()
    assert run_gate.quiet_in() == pytest.approx(run_gate.SETTLE_S)
    clock.now += 0.1
    assert run_gate.quiet_in() == pytest.approx(run_gate.SETTLE_S - 0.1)
    clock.now += run_gate.SETTLE_S
    assert run_gate.quiet_in() == 0.0


def test_a_request_being_answered_holds_background_work_back(clock: Clock) -> None:
    run_gate.request_started()
    run_gate.request_started()
    assert run_gate.quiet_in() == run_gate.POLL_S == run_gate.requests_in()
    run_gate.request_ended()
    assert run_gate.quiet_in() == run_gate.POLL_S
    run_gate.request_ended()
    assert run_gate.quiet_in() == 0.0 == run_gate.requests_in()


def test_waiting_ends_when_the_run_has_settled(clock: Clock) -> None:
    run_gate.run_started()
    run_gate.run_ended()
    clock.now += 0.1
    run_gate.wait_until_quiet()
    assert sum(clock.slept) == pytest.approx(run_gate.SETTLE_S - 0.1)
    assert run_gate.quiet_in() == 0.0


def test_waiting_never_outlasts_max_wait(clock: Clock) -> None:
    run_gate.run_started()  # a run that never says it ended (an error, st.stop())
    run_gate.wait_until_quiet(max_wait=1.0)
    assert sum(clock.slept) == pytest.approx(1.0)
    run_gate.request_started()
    clock.slept.clear()
    run_gate.wait_for_requests(max_wait=0.05)
    assert sum(clock.slept) == pytest.approx(0.05)


def test_the_middleware_counts_a_request_until_its_response_is_sent() -> None:
    from ui.request_activity import MIDDLEWARE

    during: list[int] = []

    async def page(_request: object) -> PlainTextResponse:
        during.append(run_gate._requests)
        return PlainTextResponse("hello")

    before = run_gate._requests
    client = TestClient(Starlette(routes=[Route("/", page)], middleware=MIDDLEWARE))
    assert client.get("/").text == "hello"
    assert client.get("/missing").status_code == 404
    assert during == [before + 1]
    assert run_gate._requests == before


def test_a_page_run_ends_however_the_page_stops(clock: Clock) -> None:
    with pytest.raises(RuntimeError), run_gate.page_run():
        assert run_gate.quiet_in() == run_gate.SETTLE_S
        raise RuntimeError("the page failed")
    clock.now += run_gate.SETTLE_S
    assert run_gate.quiet_in() == 0.0


def test_the_background_lane_runs_one_piece_at_a_time_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    monkeypatch.setattr(run_gate, "_started", 0.0)
    monkeypatch.setattr(run_gate, "_ended", 0.0)
    monkeypatch.setattr(run_gate, "_requests", 0)
    order: list[str] = []
    inside = threading.Event()
    release = threading.Event()

    def first() -> None:
        order.append(threading.current_thread().name)
        inside.set()
        assert release.wait(30)

    def failing() -> None:
        order.append("failing")
        raise ValueError("a panel's figures could not be computed")

    futures = [
        run_gate.in_background(first),
        run_gate.in_background(failing),
        run_gate.in_background(lambda: order.append("third")),
    ]
    assert inside.wait(30)
    assert order == [run_gate.LANE_THREAD]  # the others wait for the one under way
    release.set()
    futures[2].result(30)
    assert order == [run_gate.LANE_THREAD, "failing", "third"]
    assert isinstance(futures[1].exception(), ValueError)
