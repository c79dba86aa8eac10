"""Real browser: write a judge on the Judges page, run it on the demo, edit it, run v2,
then see both versions side by side on the Alignment page."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotation_store import Store
from demo.loading import load_demo
from tests.e2e.harness import (
    browser_page,
    open_page,
    running_app,
    screenshot,
    wait_for_job_queued,
    wait_for_streamlit,
)
from tests.support.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.e2e
PROJECT = "demo-intent-match"


def _reply(request: dict[str, Any]) -> Reply:
    text = " ".join(m["content"] for m in request["messages"])
    return Reply(content=json.dumps({"explanation": "read both", "answer": int("7" not in text)}))


def _run_judge(page: Any, app: Any) -> None:
    """Start the judge from the Evaluate page and wait until its job is done."""
    open_page(page, app, f"evaluate?project={PROJECT}")
    page.get_by_role("heading", name="Evaluate").wait_for()
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Evaluators")
    box.locator("input").click()
    page.get_by_role("option", name="judge:same-task", exact=True).click()
    page.keyboard.press("Escape")
    wait_for_streamlit(page)  # the run with the choice has ended: a click now counts it
    page.get_by_role("button", name="Start").click()
    wait_for_job_queued(page, "judge:same-task")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("No job running.").wait_for(timeout=60_000)


def _pick(page: Any, label: str, option: str) -> None:
    """Choose ``option`` in the select box labelled ``label``."""
    box = page.locator('[data-testid="stSelectbox"]').filter(
        has=page.get_by_text(label, exact=True)
    )
    box.first.locator("input").click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_streamlit(page, timeout=60_000)  # the page runs again with the choice


def _see_both_versions(page: Any, app: Any) -> None:
    """The Alignment page compares version 1 with version 2 of the judge on ``match``."""
    open_page(page, app, f"alignment?project={PROJECT}")
    page.get_by_role("heading", name=f"Alignment · {PROJECT}").wait_for(timeout=60_000)
    if page.get_by_text("Field", exact=True).count():
        _pick(page, "Field", "match")
    page.get_by_role("heading", name="Version diff").wait_for(timeout=60_000)
    for label in ("judge:same-task v1", "judge:same-task v2"):  # the chart's versions
        # the chart draws after the tables: on a busy machine that is past the default wait
        page.locator(".xtick").get_by_text(label, exact=True).wait_for(timeout=60_000)
    _pick(page, "From", "judge:same-task v1")
    _pick(page, "To", "judge:same-task v2")
    both = page.locator('[data-testid="stMetric"]').filter(has_text="Items in both")
    both.get_by_text("6", exact=True).wait_for(timeout=60_000)
    screenshot(page, "judges-alignment", full_page=False)


def _template(page: Any, text: str) -> None:
    area = page.get_by_label("Prompt template (Jinja2)")
    area.fill(text)
    area.press("Control+Enter")  # commit the text area's value


def test_create_a_judge_run_it_edit_it_and_run_version_two(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    with ScriptedLLM() as llm:
        llm.handler = _reply
        env = {
            "WORKBENCH_LLM_BASE_URL": llm.base_url,
            "WORKBENCH_LLM_API_KEY": "test-key",
            "WORKBENCH_LLM_MODEL": llm.model,
        }
        with running_app(sqlite_url, env) as app, browser_page() as page:
            open_page(page, app, f"judges?project={PROJECT}")
            page.get_by_role("heading", name="Judges").wait_for()
            page.get_by_label("Name").fill("same-task")
            page.get_by_label("Name").press("Enter")
            box = page.locator('[data-testid="stMultiSelect"]').filter(
                has_text="Scores the field(s)"
            )
            box.locator("input").click()
            page.get_by_role("option", name="match", exact=True).click()
            page.keyboard.press("Escape")
            _template(page, "Gold: {{ gold }}\nPredicted: {{ predicted }}\nSame task?")
            page.get_by_text("Gold: Set an alarm for today at 7 AM").first.wait_for()
            page.get_by_role("button", name="Create judge").click()
            page.get_by_text("Saved same-task version 1").wait_for()
            _run_judge(page, app)

            open_page(page, app, f"judges?project={PROJECT}")
            page.get_by_role("heading", name="Judges").wait_for()
            picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Judge")
            picker.first.click()
            page.get_by_role("option", name="same-task", exact=True).click()
            page.get_by_role("button", name="Save as new version").wait_for()
            _template(page, "Gold: {{ gold }}\nPredicted: {{ predicted }}\nOne task?")
            page.get_by_text("One task?").first.wait_for()
            page.get_by_role("button", name="Save as new version").click()
            page.get_by_text("Saved same-task version 2").wait_for()
            screenshot(page, "judges-version-2", full_page=False)
            _run_judge(page, app)
            _see_both_versions(page, app)

    store = Store(sqlite_url)
    runs = sorted(
        (r for r in store.runs(PROJECT) if r.evaluator == "judge:same-task"),
        key=lambda r: r.id,
    )
    assert [r.signature["version"] for r in runs] == ["1", "2"]
    assert all(r.status == "done" for r in runs)
    scores = store.scores_frame(PROJECT)
    assert (scores["evaluator"] == "judge:same-task").sum() == 12
    store.close()
