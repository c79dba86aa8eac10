"""common.latest: the newest value per key, computed off the request path."""

from __future__ import annotations

import threading

import pytest

from common.latest import Latest


def test_a_value_is_computed_once_per_version_and_the_last_one_shown_meanwhile() -> None:
    latest: Latest[str] = Latest()
    calls: list[str] = []

    def compute(v: str):
        def run() -> str:
            calls.append(v)
            return f"figures of {v}"

        return run

    first = latest.get("p", "v1", compute("v1"), wait=5)
    assert (first.value, first.version, first.updating) == ("figures of v1", "v1", False)
    assert latest.get("p", "v1", compute("v1"), wait=5).value == "figures of v1"
    assert calls == ["v1"]

    gate = threading.Event()

    def held() -> str:
        assert gate.wait(10)
        calls.append("v2")
        return "figures of v2"

    stale = latest.get("p", "v2", held, wait=0.01)
    assert (stale.value, stale.version, stale.updating) == ("figures of v1", "v1", True)
    # a second request meanwhile starts no second computation
    assert latest.get("p", "v2", compute("other"), wait=0).updating
    gate.set()
    fresh = latest.get("p", "v2", compute("again"), wait=5)
    if fresh.updating:  # the held thread stored its value just after the wait
        fresh = latest.get("p", "v2", compute("again"), wait=5)
    assert (fresh.value, fresh.updating) == ("figures of v2", False)
    assert calls == ["v1", "v2"]


def test_nothing_to_show_before_the_first_value() -> None:
    latest: Latest[int] = Latest()
    gate = threading.Event()
    snap = latest.get("p", "v1", lambda: gate.wait(10) and 1, wait=0)
    assert (snap.value, snap.version, snap.updating) == (None, None, True)
    assert not latest.has("p")
    gate.set()
    assert latest.get("p", "v1", lambda: 2, wait=5).value in (1, None)


def test_an_error_is_raised_to_the_request_for_that_version() -> None:
    latest: Latest[int] = Latest()

    def broken() -> int:
        raise ValueError("no such field")

    with pytest.raises(ValueError, match="no such field"):
        latest.get("p", "v1", broken, wait=5)
    assert latest.get("p", "v1", lambda: 3, wait=5).value == 3


def test_values_are_kept_for_at_most_max_keys_keys() -> None:
    latest: Latest[int] = Latest(max_keys=2)
    for i, key in enumerate(["a", "b", "c"]):
        assert latest.get(key, "v", lambda i=i: i, wait=5).value == i
    assert not latest.has("a")
    assert latest.has("b") and latest.has("c")


def test_computations_run_where_submit_puts_them() -> None:
    """The panels pass ``common.run_gate.in_background``: their figures are computed in
    the background lane, once the page being drawn has the process to itself."""
    from common import run_gate

    names: list[str] = []
    latest: Latest[str] = Latest(submit=run_gate.in_background)

    def compute() -> str:
        names.append(threading.current_thread().name)
        return "figures"

    assert latest.get("p", "v1", compute, wait=30).value == "figures"
    assert names == [run_gate.LANE_THREAD]
    assert Latest().get("p", "v1", compute, wait=30).value == "figures"
    assert names[-1] == "workbench-latest"  # by default, a thread of its own
