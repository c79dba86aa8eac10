"""Evaluator cards: Run buttons for reviewers and admins only (unless the project allows
annotators), and scores on an evaluator's own scale labelled as such (#16, point 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from evaluators.registry import evaluators_for_kind
from jobs.runner import run_evaluator
from tests.annotate_fixtures import make_project
from tests.support.apptest import open_app
from tests.support.scripted_llm import Reply, ScriptedLLM

JUDGE = Path(__file__).parent / "data" / "judges" / "same_task.toml"


def _panel_as(project: str, item_id: str, name: str, role: str) -> None:
    from ui.context import get_store
    from ui.evaluator_panel import evaluator_panel

    store = get_store()
    user = store.ensure_annotator(name, role=role)
    evaluator_panel(store.project(project), store.item(project, item_id), user)


def _panel(monkeypatch: pytest.MonkeyPatch, store: Store, role: str) -> AppTest:
    return open_app(
        monkeypatch, store.url, script=_panel_as, args=("intent_match", "im1", role, role)
    )


def _run_buttons(at: AppTest) -> list[str]:
    return [b.label for b in at.button if b.key and b.key.endswith("-btn")]


def test_annotators_get_no_run_buttons_unless_the_project_allows_it(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    make_project(store, "intent_match")
    n = len(evaluators_for_kind("intent_match"))
    assert n > 0
    assert _run_buttons(_panel(monkeypatch, store, "annotator")) == []
    assert _run_buttons(_panel(monkeypatch, store, "reviewer")) == ["Run"] * n
    assert _run_buttons(_panel(monkeypatch, store, "admin")) == ["Run"] * n
    project = store.project("intent_match")
    store.update_settings("intent_match", {**project.settings, "annotators_run_evaluators": True})
    assert _run_buttons(_panel(monkeypatch, store, "annotator")) == ["Run"] * n


def test_bleu_is_labelled_on_its_own_0_to_100_scale(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    make_project(store, "intent_match")
    run_evaluator(store, "intent_match", "bleu", item_ids=["im1"])
    score = store.results_frame("intent_match")["scores"].iloc[0]["match"]
    assert 1 < score < 100  # a partial overlap, on BLEU's scale
    at = _panel(monkeypatch, store, "reviewer")
    text = "\n".join(m.value for m in at.markdown)
    assert f"BLEU **{score:.3g}** on 0–100 (for match)" in text
    assert "match **" not in text


def test_a_stored_judge_runs_from_the_side_panel(
    monkeypatch: pytest.MonkeyPatch, store: Store, llm_env: ScriptedLLM
) -> None:
    from workbench_api.judges import save_judge

    make_project(store, "intent_match")
    save_judge(store, "same-task", JUDGE.read_text())
    llm_env.handler = lambda req: Reply(content=json.dumps({"explanation": "same", "answer": 1}))
    at = _panel(monkeypatch, store, "reviewer")
    [button] = [b for b in at.button if b.key and "judge:same-task" in b.key]
    button.click()
    at.run(timeout=60)
    assert not at.exception
    [run] = [r for r in store.runs("intent_match") if r.evaluator == "judge:same-task"]
    assert run.signature["version"] == "1" and run.status == "done"
    scores = store.scores_frame("intent_match")
    assert scores.loc[scores["evaluator"] == "judge:same-task", "score"].tolist() == [1.0]
