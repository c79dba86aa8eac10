"""Autocalibration: items people corrected become worked examples of the next version,
left out of its figures (demo intent-match project, scripted judge)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotation_store import Store
from commands import main
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"


def _same_unless_alarm(request: dict[str, Any]) -> Reply:
    """'same task' (1) unless the item judged mentions an alarm."""
    text = "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")
    judged = text.split("### The item to judge")[-1]
    return Reply(content=json.dumps({"answer": 0 if "alarm" in judged.lower() else 1}))


def test_corrections_become_worked_examples_of_a_new_version(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    fast_llm.handler = _same_unless_alarm
    db = ["--db", demo]
    assert main([*db, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    assert main([*db, "evaluate", PROJECT, "--evaluator", "judge:same-task"]) == 0
    capsys.readouterr()
    auto = [*db, "judge", "autocalibrate", "same-task", "--project", PROJECT]
    # people say lights is not the same task (3 of 3); the judge said it is
    assert main([*auto, "--suggest"]) == 0
    assert "1 item(s) where people disagree with judge same-task: lights" in capsys.readouterr().out
    # alarm's label is 2:1, not settled: it cannot be a worked example
    assert main([*auto, "--items", "alarm"]) == 2
    assert "'alarm' has no unanimous or adjudicated label" in capsys.readouterr().err
    assert main([*auto, "--items", "lights"]) == 0
    assert "version 2 saved with worked examples lights" in capsys.readouterr().out
    store = Store(demo)
    v2 = store.judge("same-task", 2)
    [example] = v2.definition["few_shot"]["examples"]
    assert (example["item_id"], example["answer"]) == ("lights", 0)
    assert v2.definition["template"] == store.judge("same-task", 1).definition["template"]
    store.close()

    assert main([*db, "evaluate", PROJECT, "--evaluator", "judge:same-task"]) == 0
    capsys.readouterr()
    args = ["alignment", PROJECT, "--field", "match", "--json", "--resamples", "0"]
    assert main([*db, *args]) == 0
    rows = {r["label"]: r for r in json.loads(capsys.readouterr().out)["versions"]}
    assert rows["judge:same-task v1"]["n"] == 6
    new = rows["judge:same-task v2"]
    assert new["excluded"]["reasons"] == {"lights": "a few-shot example"} and new["n"] == 5
    assert main([*auto, "--items", "lights"]) == 2
    assert "already a worked example of version 2" in capsys.readouterr().err


def test_the_alignment_page_saves_corrections_as_a_new_version(
    monkeypatch: pytest.MonkeyPatch, demo: str, fast_llm: ScriptedLLM
) -> None:
    from jobs.runner import run_evaluator
    from tests.support.apptest import assert_ok, open_app
    from workbench_api.judges import save_judge

    fast_llm.handler = _same_unless_alarm
    store = Store(demo)
    save_judge(store, "same-task", TOML.read_text())
    run_evaluator(store, PROJECT, "judge:same-task")
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, demo, page="pages/alignment.py", project=PROJECT, timeout=120)
    at.selectbox(key="alignment_diff_b").set_value("judge:same-task v1").run()
    picker = at.multiselect(key="alignment_autocal_items")
    assert picker.options == ["lights"]
    picker.set_value(["lights"]).run()
    at.button(key="alignment_autocal_save").click().run()
    assert_ok(at)
    assert "judge:same-task version 2 saved with 1 worked example(s)" in at.success[0].value
    [example] = store.judge("same-task", 2).definition["few_shot"]["examples"]
    assert example["item_id"] == "lights"
    store.close()
