"""The Judges page (AppTest): create a judge, preview its prompt, try it, save version 2."""

from __future__ import annotations

import json

import pytest

from annotation_store import Store
from tests.support.apptest import assert_ok, open_app
from tests.support.scripted_llm import Reply, ScriptedLLM

PROJECT = "demo-intent-match"
TEMPLATE = "Gold: {{ gold }}\nPredicted: {{ predicted }}\nSame task?"


def _code(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(c.value for c in at.code)


def test_create_preview_try_and_save_a_new_version(
    monkeypatch: pytest.MonkeyPatch, demo: str, llm_env: ScriptedLLM
) -> None:
    llm_env.handler = lambda req: Reply(content=json.dumps({"explanation": "ok", "answer": 1}))
    at = open_app(monkeypatch, demo, page="pages/judges.py", project=PROJECT, timeout=90)
    assert at.button(key="jd_save").label == "Create judge"
    at.text_input(key="jd_name").input("same-task")
    at.multiselect(key="jd_fields").select("match")
    at.text_area(key="jd_template").input(TEMPLATE)
    assert_ok(at.run())
    # the preview renders the first item with the output instructions
    assert "Gold: Set an alarm for today at 7 AM" in _code(at)
    assert '"answer": 1 for yes or 0 for no' in _code(at)
    at.button(key="jd_try").click()
    assert_ok(at.run())
    assert any("Answer: 1" in s.value for s in at.success)
    assert llm_env.calls == 1
    at.button(key="jd_save").click()
    assert_ok(at.run())
    assert any("Saved same-task version 1" in s.value for s in at.success)
    store = Store(demo)
    assert store.judge("same-task").definition["template"] == TEMPLATE
    # the saved judge is open now: edit and save as version 2
    assert at.selectbox(key="jd_pick").value == "same-task"
    assert at.button(key="jd_save").label == "Save as new version"
    at.text_area(key="jd_template").input(TEMPLATE.replace("Same task?", "One task?"))
    assert_ok(at.run())
    at.button(key="jd_save").click()
    assert_ok(at.run())
    assert any("Saved same-task version 2" in s.value for s in at.success)
    assert [r.version for r in store.judge_versions("same-task")] == [1, 2]
    assert store.judge("same-task", 1).definition["template"] == TEMPLATE
    [versions] = at.dataframe
    assert list(versions.value["version"]) == [1, 2]
    store.close()


def test_attribute_access_is_refused_on_the_page(
    monkeypatch: pytest.MonkeyPatch, demo: str
) -> None:
    at = open_app(monkeypatch, demo, page="pages/judges.py", project=PROJECT, timeout=90)
    at.text_input(key="jd_name").input("evil")
    at.multiselect(key="jd_fields").select("match")
    at.text_area(key="jd_template").input("{{ gold.__class__ }}")
    assert_ok(at.run())
    assert any("refused" in e.value for e in at.error)
    assert at.button(key="jd_save").disabled
