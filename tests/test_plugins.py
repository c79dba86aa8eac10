"""Plugins: entry point discovery, the example package installed and run from the CLI."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from annotation_store import Store
from evaluators.base import Evaluator
from kinds.base import FieldType, HumanField, ItemField, TaskKind
from tests.support.cli import ROOT, run_cli_script

#: these tests read entry points (tests/conftest.py turns plugins off elsewhere)
pytestmark = pytest.mark.plugins

PLUGIN = ROOT / "examples" / "plugin"


@pytest.fixture(scope="module")
def plugin_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example plugin pip-installed into a private directory (offline, no deps): the
    shared environment is left as it was; a child process puts the directory on its path."""
    target = tmp_path_factory.mktemp("plugin-site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
        + ["--no-build-isolation", "--target", str(target), str(PLUGIN)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert (target / "metric_audit_char_ngram").is_dir()
    return target


def test_dice_worked_example(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluators.registry import EVALUATORS

    # the module imported here, not through an installed copy's entry point
    monkeypatch.setenv("WORKBENCH_PLUGINS", "0")
    # importing the plugin registers its evaluator: keep that out of the other tests
    EVALUATORS.names()  # discovered first, so the snapshot holds every built-in
    monkeypatch.setattr(EVALUATORS, "_entries", dict(EVALUATORS._entries))
    monkeypatch.syspath_prepend(str(PLUGIN))
    monkeypatch.delitem(sys.modules, "metric_audit_char_ngram", raising=False)
    from metric_audit_char_ngram import dice

    # trigrams {abc, bcd} and {abc, bce}: one shared of four -> 2 * 1 / 4
    assert dice("abcd", "abce", 3) == 0.5
    assert dice("Same  text", "same text", 3) == 1.0
    assert dice("abc", "xyz", 3) == 0.0


def test_installed_plugin_runs_from_the_cli(demo: str, plugin_target: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(plugin_target), "HOME": str(plugin_target)}
    proc = run_cli_script(
        "--db", demo, "evaluate", "demo-intent-match", "--evaluator", "char_ngram", env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("char_ngram: 6 evaluated, 0 failed")
    store = Store(demo)
    scores = store.scores_frame("demo-intent-match")
    mine = scores[scores["evaluator"] == "char_ngram"]
    assert len(mine) == 6 and set(mine["field"]) == {"match"}
    assert mine["score"].between(0, 1).all() and mine["score"].nunique() > 1
    store.close()
    # without the plugin on the path the name is unknown, and the error lists the built-ins
    proc = run_cli_script(
        "--db",
        demo,
        "evaluate",
        "demo-intent-match",
        "--evaluator",
        "char_ngram",
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2 and "unknown evaluator 'char_ngram'" in proc.stderr


TOY_KIND = TaskKind(
    name="toy_plugin_kind",
    title="Toy kind (plugin test)",
    description="One text, one binary judgment.",
    item_fields=(ItemField("text"),),
    human_fields_fn=lambda settings: (HumanField("ok", FieldType.BINARY, values=(0, 1)),),
)


class ToyEvaluator(Evaluator):
    """An evaluator an entry point names directly (class, not module)."""

    name = "toy_plugin_evaluator"
    kinds = ("binary",)
    fields = ("label",)


def test_broken_plugin_is_a_warning_and_builtins_still_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import common.registry as registry
    from evaluators.registry import EVALUATORS, evaluator_names, get_evaluator_class

    eps = [
        EntryPoint("broken", "no_such_module_for_this_test", "metric_audit.evaluators"),
        EntryPoint("toy", "tests.test_plugins:ToyEvaluator", "metric_audit.evaluators"),
    ]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    monkeypatch.setattr(EVALUATORS, "_entries", dict(EVALUATORS._entries))
    monkeypatch.setattr(EVALUATORS, "_discovered", False)
    monkeypatch.setattr(EVALUATORS, "plugin_errors", {})
    with pytest.warns(RuntimeWarning, match="plugin 'broken'.*ModuleNotFoundError"):
        names = evaluator_names()
    assert "bleu" in names and get_evaluator_class("toy_plugin_evaluator") is ToyEvaluator
    assert list(EVALUATORS.plugin_errors) == ["broken"]


def test_a_task_kind_from_an_entry_point_is_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    import common.registry as registry
    from kinds.registry import KINDS, get_kind, kind_names

    eps = [EntryPoint("toy", "tests.test_plugins:TOY_KIND", "metric_audit.kinds")]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    monkeypatch.setattr(KINDS, "_entries", dict(KINDS._entries))
    monkeypatch.setattr(KINDS, "_discovered", False)
    assert "toy_plugin_kind" in kind_names() and "intent_match" in kind_names()
    assert get_kind("toy_plugin_kind") is TOY_KIND


def _panel_for(project: str, item_id: str) -> None:
    from ui.context import get_store
    from ui.evaluator_panel import evaluator_panel

    store = get_store()
    user = store.ensure_annotator("reviewer", role="reviewer")
    evaluator_panel(store.project(project), store.item(project, item_id), user)


def test_installed_plugin_runs_from_the_app(
    monkeypatch: pytest.MonkeyPatch, demo: str, plugin_target: Path
) -> None:
    from evaluators.registry import EVALUATORS
    from tests.support.apptest import open_app

    # the installed distribution is found on the path, as in an environment with it
    monkeypatch.syspath_prepend(str(plugin_target))
    monkeypatch.delitem(sys.modules, "metric_audit_char_ngram", raising=False)
    monkeypatch.setattr(EVALUATORS, "_entries", dict(EVALUATORS._entries))
    monkeypatch.setattr(EVALUATORS, "_discovered", False)
    monkeypatch.setattr(EVALUATORS, "plugin_errors", {})
    at = open_app(monkeypatch, demo, script=_panel_for, args=("demo-intent-match", "alarm"))
    [button] = [b for b in at.button if b.key and "char_ngram" in b.key]
    button.click()
    at.run(timeout=60)
    assert not at.exception
    scores = Store(demo).scores_frame("demo-intent-match")
    mine = scores[scores["evaluator"] == "char_ngram"]
    assert mine["item_id"].tolist() == ["alarm"] and 0 <= mine["score"].iloc[0] <= 1


def test_with_plugins_off_no_entry_point_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """``WORKBENCH_PLUGINS=0``: the built-ins only, the toy kind of an entry point unseen;
    the rest of the suite runs so, whatever is installed beside the workbench."""
    import common.registry as registry
    from kinds.registry import KINDS, kind_names

    eps = [EntryPoint("toy", "tests.test_plugins:TOY_KIND", "metric_audit.kinds")]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    monkeypatch.setattr(KINDS, "_entries", dict(KINDS._entries))
    monkeypatch.setattr(KINDS, "_discovered", False)
    monkeypatch.setenv("WORKBENCH_PLUGINS", "0")
    names = kind_names()
    assert "toy_plugin_kind" not in names and "intent_match" in names
