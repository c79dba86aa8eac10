"""Plugins cannot stall the workbench (issue 37 point 4): no lock is held while a plugin
imports; one that hangs at import costs a bounded wait once and becomes the warning a
failing plugin gets; the built-ins work meanwhile; the app's pages never wait on it."""

from __future__ import annotations

import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli_script
from tests.support.plugins import evaluator_plugins

#: these tests read entry points (tests/conftest.py turns plugins off elsewhere)
pytestmark = pytest.mark.plugins

#: A plugin module that blocks at import until the test releases it.
BLOCKED = textwrap.dedent(
    """
    import builtins

    from evaluators.base import Evaluator

    builtins._wb_plugin_gate.wait()


    class Late(Evaluator):
        name = "late_plugin_evaluator"
        kinds = ("binary",)
        fields = ("label",)
    """
)


@pytest.fixture
def blocked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[threading.Event]:
    """The evaluator registry, freshly undiscovered, with one entry point whose module
    blocks at import until the returned event is set (set at the end in any case)."""
    import builtins

    import common.registry as registry

    gate = threading.Event()
    monkeypatch.setattr(builtins, "_wb_plugin_gate", gate, raising=False)
    (tmp_path / "blocked_plugin.py").write_text(BLOCKED)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "blocked_plugin", raising=False)
    evaluator_plugins(
        monkeypatch, [EntryPoint("blocked", "blocked_plugin:Late", "metric_audit.evaluators")]
    )
    monkeypatch.setattr(registry, "_GAVE_UP", threading.Event())
    try:
        yield gate
    finally:
        gate.set()
        # the late plugin registers once its import ends: wait for it, then take it out
        # (the registry outlives the test; other modules' tests count its evaluators)
        for thread in threading.enumerate():
            if thread.name.endswith(" blocked"):
                thread.join(60)
        from evaluators.registry import EVALUATORS

        EVALUATORS.remove("late_plugin_evaluator")


def _in_thread(fn: Callable[[], Any], *, app_page: bool = False) -> Any:
    """``fn()`` in another thread (as the app's page runs or a second request would),
    its result, or AssertionError when it is still waiting after a minute."""
    import common.registry as registry

    out: list[object] = []

    def run() -> None:
        if app_page:
            registry.never_wait_for_plugins()
        out.append(fn())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert out, "still waiting on the plugin"
    return out[0]


def test_a_plugin_hanging_at_import_is_given_up_with_a_warning(
    blocked: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    import common.registry as registry
    from evaluators.registry import EVALUATORS, evaluator_names

    monkeypatch.setattr(registry, "PLUGIN_WAIT_S", 0.5)
    with pytest.warns(RuntimeWarning, match="plugin 'blocked'.*TimeoutError: still importing"):
        names = evaluator_names()
    assert "bleu" in names and "late_plugin_evaluator" not in names
    # no lock held meanwhile: another thread registers and reads while the plugin hangs
    toy = type("ToyMeanwhile", (EVALUATORS.get("bleu"),), {"name": "toy_meanwhile"})
    _in_thread(lambda: EVALUATORS.add("toy_meanwhile", toy))
    assert "toy_meanwhile" in _in_thread(EVALUATORS.names)
    assert any("'blocked'" in w for w in registry.plugin_warnings())
    # once given up on, it stays out even when its import ends at last
    blocked.set()
    registry_thread = next(t for t in threading.enumerate() if t.name.endswith(" blocked"))
    registry_thread.join(60)
    assert "late_plugin_evaluator" not in EVALUATORS.names()


def test_app_pages_never_wait_for_a_plugin_still_importing(blocked: threading.Event) -> None:
    from evaluators.registry import EVALUATORS

    # the deadline is 10 s away: a page run lists the built-ins at once
    names = _in_thread(EVALUATORS.names, app_page=True)
    assert "bleu" in names and "late_plugin_evaluator" not in names
    blocked.set()
    next(t for t in threading.enumerate() if t.name.endswith(" blocked")).join(60)
    assert "late_plugin_evaluator" in _in_thread(EVALUATORS.names, app_page=True)


def test_home_opens_while_a_plugin_hangs(
    blocked: threading.Event, monkeypatch: pytest.MonkeyPatch, sqlite_url: str
) -> None:
    import common.registry as registry
    from tests.support.apptest import open_app

    monkeypatch.setattr(registry, "PLUGIN_WAIT_S", 600)
    at = open_app(monkeypatch, sqlite_url, timeout=60)
    assert not at.exception and at.title


SLEEPER = "import time\ntime.sleep(600)\n"
SLEEPY_SITE = {
    "sleepy_eval.py": SLEEPER,
    "sleepy_kind.py": SLEEPER,
    "sleepy-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: sleepy\nVersion: 0.1\n",
    "sleepy-0.1.dist-info/entry_points.txt": (
        "[metric_audit.evaluators]\nsleeper = sleepy_eval\n\n"
        "[metric_audit.kinds]\ndozer = sleepy_kind\n"
    ),
}


def test_cli_kinds_and_agreement_finish_despite_plugins_that_sleep(
    tmp_path: Path, demo: str
) -> None:
    for name, text in SLEEPY_SITE.items():  # an installed distribution of two plugins
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)}
    proc = run_cli_script("kinds", env=env)  # at most two minutes, or the test fails
    assert proc.returncode == 0, proc.stderr
    assert "binary: " in proc.stdout
    waits = sorted(
        line.split("still importing after ")[1]
        for line in proc.stderr.splitlines()
        if "could not be loaded: TimeoutError: still importing" in line
    )
    # one wait of 10 s, the next group's shorter: one plugin was given up on already
    assert waits == ["1 s; given up", "10 s; given up"]
    assert "evaluator plugin 'sleeper' (sleepy_eval) could not be loaded" in proc.stderr
    assert "task kind plugin 'dozer' (sleepy_kind) could not be loaded" in proc.stderr
    agreement = run_cli_script("--db", demo, "agreement", "demo-intent-match", env=env)
    assert agreement.returncode == 0, agreement.stderr
    assert "still importing" in agreement.stderr
