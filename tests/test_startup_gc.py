"""The collector pause of a command-line start-up: undone by the command runner, and only
when it was the one that switched the collector off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import commands
from common import startup_gc


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    startup_gc._paused = False
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def test_pause_switches_the_collector_off_and_resume_back_on_without_freezing() -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    startup_gc.pause()
    assert not gc.isenabled()
    startup_gc.resume()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    startup_gc.resume()  # a second resume changes nothing
    assert gc.isenabled()


def test_a_collector_switched_off_elsewhere_stays_off() -> None:
    gc.disable()
    frozen = gc.get_freeze_count()
    startup_gc.pause()
    startup_gc.resume()
    assert not gc.isenabled()
    assert gc.get_freeze_count() == frozen


def test_the_command_runner_resumes_the_collector_before_the_command_runs(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    gc.enable()
    startup_gc.pause()
    assert not gc.isenabled()
    assert commands.main(["--db", f"sqlite:///{tmp_path}/wb.db", "projects"]) == 0
    assert gc.isenabled()
