"""Plugins cannot take the CLI or the app down (issue 24 point 4, issue 28 point 8): a
plugin that exits or raises while loading, or whose entry raises when read, is a warning
naming it; the built-ins still work; admins see the warnings in the app."""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from tests.support.cli import run_cli_script
from tests.support.plugins import evaluator_plugins

#: these tests read entry points (tests/conftest.py turns plugins off elsewhere)
pytestmark = pytest.mark.plugins

#: A distribution with three hostile entry points: an evaluator module that calls
#: sys.exit() at import, a task kind whose attributes raise when read (SystemExit for
#: one of them), and an evaluator whose applies_to raises.
HOSTILE = textwrap.dedent(
    """
    import sys

    from evaluators.base import Evaluator
    from kinds.base import FieldType, HumanField, ItemField, TaskKind


    class HostileKind(TaskKind):
        def __getattribute__(self, attr):
            if attr == "name" or attr.startswith("__"):
                return object.__getattribute__(self, attr)
            if attr == "title":
                raise SystemExit("title read")
            raise RuntimeError(f"no {attr} today")


    KIND = HostileKind(
        name="hostile_kind", title="x", description="x", item_fields=(ItemField("text"),),
        human_fields_fn=lambda s: (HumanField("ok", FieldType.BINARY, values=(0, 1)),),
    )


    class Grumpy(Evaluator):
        name = "grumpy"
        kinds = ("binary",)
        fields = ("label",)

        @classmethod
        def applies_to(cls, kind):
            raise ValueError("grumpy today")
    """
)
ENTRY_POINTS = textwrap.dedent(
    """
    [metric_audit.evaluators]
    exiter = hostile_exit
    grumpy = hostile_plugin:Grumpy

    [metric_audit.kinds]
    hostile = hostile_plugin:KIND
    """
)


@pytest.fixture
def hostile_site(tmp_path: Path) -> Path:
    """A directory that, on the path, is an installed distribution with the entry points."""
    (tmp_path / "hostile_plugin.py").write_text(HOSTILE)
    (tmp_path / "hostile_exit.py").write_text("import sys\nsys.exit(3)\n")
    info = tmp_path / "hostile_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return tmp_path


def test_cli_kinds_survives_hostile_plugins(hostile_site: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(hostile_site), "HOME": str(hostile_site)}
    proc = run_cli_script("kinds", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "binary: " in proc.stdout and "hostile_kind" not in proc.stdout
    assert "evaluator plugin 'exiter' (hostile_exit) could not be loaded: SystemExit: 3" in (
        proc.stderr
    )
    assert "task kind plugin 'hostile_kind' could not be read: SystemExit: title read" in (
        proc.stderr
    )
    assert "evaluator plugin 'grumpy' could not be read: ValueError: grumpy today" in proc.stderr
    binary = next(line for line in proc.stdout.splitlines() if line.startswith("  evaluators"))
    assert "grumpy" not in binary


def test_a_plugin_that_exits_at_import_is_a_warning(
    monkeypatch: pytest.MonkeyPatch, hostile_site: Path
) -> None:
    import common.registry as registry
    from evaluators.registry import evaluator_names

    monkeypatch.syspath_prepend(str(hostile_site))
    monkeypatch.delitem(sys.modules, "hostile_exit", raising=False)
    evaluator_plugins(
        monkeypatch, [EntryPoint("exiter", "hostile_exit", "metric_audit.evaluators")]
    )
    with pytest.warns(RuntimeWarning, match="plugin 'exiter'.*SystemExit: 3"):
        assert "bleu" in evaluator_names()
    assert any("'exiter'" in w for w in registry.plugin_warnings())


def _home_as(role: str) -> None:
    import streamlit as st

    from ui.plugin_warnings import show_plugin_warnings

    show_plugin_warnings(role)
    st.write("home")


@pytest.mark.parametrize(("role", "shown"), [("admin", True), ("annotator", False)])
def test_admins_see_plugin_load_warnings_in_the_app(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, role: str, shown: bool
) -> None:
    from evaluators.registry import EVALUATORS
    from tests.support.apptest import open_app

    monkeypatch.setattr(
        EVALUATORS, "plugin_errors", {"exiter": "evaluator plugin 'exiter' could not be loaded"}
    )
    at = open_app(monkeypatch, sqlite_url, script=_home_as, args=(role,))
    warnings = [w.value for w in at.warning]
    assert any("evaluator plugin 'exiter' could not be loaded" in w for w in warnings) is shown
