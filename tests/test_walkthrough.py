"""The architecture walk-through (issue 12, point 5): a toy kind and a toy statistic, one
module each, taken from the code blocks of docs/architecture.md at test time, reach the
CLI, the Annotate page, the judges, the JSON document, the HTML report and the Agreement
page, with no other file touched. (The statistic's Markdown report and side panel are in
tests/test_agreement_declared.py.)"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agreement.statistics import undeclare
from annotation_store import Store
from commands import main
from jobs.runner import run_evaluator
from kinds.registry import KINDS
from reports import build_report, render_report
from tests.annotate_apptest import click, open_annotate
from tests.support.apptest import open_app
from tests.support.scripted_llm import Reply, ScriptedLLM
from ui.annotation.context import widget_token

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
KIND, STAT, PROJECT = "toy_helpfulness", "toy_complete_share", "toy"
QUESTION = "How do I reset my router?"
ANSWER = "Hold the reset button for ten seconds, then wait for the lights."


def walkthrough_modules() -> dict[str, str]:
    """File name -> code of each code block of the walk-through (named on the line
    before it, as `` `toy_kind.py`: ``)."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Walk-through") :]
    blocks = re.findall(r"^`(\w+\.py)`:.*?```python\n(.*?)```", section, flags=re.S | re.M)
    return dict(blocks)


@pytest.fixture
def plugin(tmp_path: Path) -> Iterator[None]:
    """The walk-through's two modules written to a package in ``tmp_path`` and imported;
    unloaded again afterwards."""
    modules = walkthrough_modules()
    assert sorted(modules) == ["toy_kind.py", "toy_statistic.py"]
    package = tmp_path / "walkthrough_plugin"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, code in modules.items():
        (package / name).write_text(code, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.import_module("walkthrough_plugin.toy_kind")
        importlib.import_module("walkthrough_plugin.toy_statistic")
        yield
    finally:
        KINDS.remove(KIND)
        undeclare(STAT)
        for name in [m for m in sys.modules if m.startswith("walkthrough_plugin")]:
            del sys.modules[name]
        sys.path.remove(str(tmp_path))
    assert KIND not in KINDS.names()  # unloaded: later tests see the built-in kinds only


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _prompt_about(llm: ScriptedLLM, text: str) -> str:
    """The last message of the request whose prompt shows ``text`` (items run concurrently)."""
    (prompt,) = [
        r["messages"][-1]["content"] for r in llm.requests if text in r["messages"][-1]["content"]
    ]
    return prompt


def _load_project(tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Create the toy project, import two items and three people's labels by the CLI."""
    items = tmp_path / "items.csv"
    items.write_text(
        "item_id,question,answer,generator\n"
        f'router,{QUESTION},"{ANSWER}",bot-a\n'
        "tea,How long should green tea steep?,Tea is a drink.,bot-b\n"
    )
    labels = tmp_path / "labels.csv"
    rows = [("router", "ann1", 3), ("router", "ann2", 3), ("router", "ann3", 2)]
    rows += [("tea", "ann1", 1), ("tea", "ann2", 1)]  # ann3 left tea out
    labels.write_text(
        "item_id,annotator,field,value\n" + "".join(f"{i},{a},helpful,{v}\n" for i, a, v in rows)
    )
    _cli(capsys, "--db", url, "project", "create", PROJECT, "--kind", KIND)
    assert "2" in _cli(capsys, "--db", url, "import", "items", PROJECT, str(items))
    _cli(capsys, "--db", url, "import", "annotations", PROJECT, str(labels))


def test_toy_kind_and_statistic_reach_every_part(
    plugin: None,
    tmp_path: Path,
    sqlite_url: str,
    llm_env: ScriptedLLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # CLI: the kind is listed with the judges that fit its declarations
    kinds = {k["name"]: k for k in json.loads(_cli(capsys, "kinds", "--json"))}
    assert kinds[KIND]["human_fields"] == {"helpful": "ordinal"}
    assert kinds[KIND]["evaluators"] == ["geval", "prometheus"]
    _load_project(tmp_path, sqlite_url, capsys)

    # the judges: prompts built from the kind's declarations, grades onto its 1-3 field
    store = Store(sqlite_url)
    try:
        llm_env.handler = lambda req: Reply(content="5")
        run_evaluator(store, PROJECT, "geval", settings={"samples": 2})
        prompt = _prompt_about(llm_env, QUESTION)
        assert 'item of the task "Toy helpfulness"' in prompt
        assert "A helpful answer takes up the question itself" in prompt
        assert f"Question: {QUESTION}\nAnswer: {ANSWER}" in prompt
        assert "- 3: answers the question fully" in prompt and "bot-a" not in prompt
        llm_env.reset()
        llm_env.handler = lambda req: Reply(content="Feedback: on topic. [RESULT] 3")
        run_evaluator(store, PROJECT, "prometheus", settings={"temperature": 0})
        prompt = _prompt_about(llm_env, QUESTION)
        assert f"###Question:\n{QUESTION}\n\n###Answer:\n{ANSWER}" in prompt
        assert "[How far does the answer help the person who asked?]" in prompt
        scores = store.scores_frame(PROJECT)
        by_judge = scores.groupby("evaluator")["score"].agg(set).to_dict()
        assert by_judge == {"geval": {3.0}, "prometheus": {2.0}}  # 1 + (g - 1) / 4 x 2
        report = build_report(store, PROJECT, n_resamples=0)
    finally:
        store.close()

    # the JSON document by the CLI: the toy statistic and the judges on the toy field
    doc = json.loads(
        _cli(capsys, "--db", sqlite_url, "agreement", PROJECT, "--json", "--resamples", "0")
    )
    helpful = doc["fields"]["helpful"]
    assert helpful[STAT] == pytest.approx(0.5) and helpful[f"{STAT}_n_items"] == 1
    assert {"geval", "prometheus"} <= {k.split(" ")[0] for k in doc["evaluators"]}

    # the HTML report
    html = render_report(report, "html")
    assert "Complete share" in html and "declared in one module by the architecture" in html

    # the Agreement page
    at = open_app(monkeypatch, sqlite_url, project=PROJECT, page="pages/agreement.py")
    (summary,) = [d.value for d in at.dataframe if "Complete share" in d.value.columns]
    assert summary.loc[0, "Complete share"] == pytest.approx(0.5)

    # the Annotate page: the generic view draws the declared fields; a choice is saved
    at = open_annotate(monkeypatch, sqlite_url, PROJECT, item="router")
    shown = " ".join(str(m.value) for m in at.markdown).replace("\\", "")  # Markdown escapes
    assert QUESTION in shown and ANSWER in shown
    key = f"opt::{widget_token(PROJECT, 'router')}::helpful::"
    assert {b.key for b in at.button if (b.key or "").startswith(key)} == {
        f"{key}{v}" for v in (1, 2, 3)
    }
    click(at, f"{key}2")
    store = Store(sqlite_url)
    try:
        state = store.item_state(PROJECT, "router", "admin")
    finally:
        store.close()
    assert state["labels"] == {"helpful": 2} and state["status"] == "draft"
