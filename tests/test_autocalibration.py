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


def test_on_a_zero_to_one_scale_a_level_off_counts_as_corrected(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """Intent resolution grades 0-1 in steps of 0.2: "a whole point off" could never
    happen there, and the page said the people agreed with the judge on every item."""
    import pandas as pd

    from tests.alignment_fixtures import add_run
    from tests.support.apptest import open_app
    from workbench_api.autocalibration import corrected_items, scale_step

    store.create_project("toy", "intent_resolution")
    ids = [f"i{k:02d}" for k in range(12)]
    store.upsert_items(
        "toy", [{"item_id": i, "fields": {"query": "q", "response": "r"}} for i in ids]
    )
    people = [
        {"item_id": i, "annotator": who, "field": "resolution", "value": 0.6, "status": "submitted"}
        for i in ids
        for who in ("ann", "bob", "cat")
    ]
    store.import_labels("toy", people)
    add_run(store, "1", dict.fromkeys(ids, 1.0), field="resolution")
    # version 2 is right on every item but three: one level off, two levels, and 0.1
    v2 = dict.fromkeys(ids, 0.6) | {"i01": 0.8, "i02": 0.2, "i03": 0.7}
    add_run(store, "2", v2, field="resolution")
    spec = store.project("toy").task_kind.human_fields({})[0]
    assert scale_step(spec) == pytest.approx(0.2)
    frame = pd.DataFrame(
        {"item_id": ids, "score_b": [v2[i] for i in ids], "human": [0.6] * len(ids)}
    )
    assert corrected_items(frame, False, 0.2) == ["i01", "i02"]
    assert corrected_items(frame, False) == []  # the old rule: a whole point
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=120)
    picker = at.multiselect(key="alignment_autocal_items")
    assert picker.options == ["i01", "i02"]
