"""Real browser: a batch run survives a reload; a new user finds the worst item's fact grid.

Screenshots go to test-output/screenshots/audit-*.png (1440x900).
"""

from __future__ import annotations

import json
import re
import time

import pytest

from annotation_store import Store
from tests.e2e.harness import (
    browser_page,
    open_page,
    running_app,
    screenshot,
    wait_for_streamlit,
)
from tests.support.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.e2e

N_ITEMS = 20
LEVELS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def _judge(body: dict) -> Reply:
    """Score by the item number in the prompt, so the audit has something to sort."""
    text = json.dumps(body.get("messages", []))
    found = re.search(r"question number (\d+)", text)
    n = int(found.group(1)) if found else 0
    return Reply(
        content=json.dumps(
            {
                "explanation": f"Judged item {n}.",
                "agent_perceived_intent": "x",
                "actual_user_intent": "x",
                "correct_intent_detected": True,
                "intent_resolved": True,
                "resolution_score": LEVELS[n % len(LEVELS)],
            }
        ),
        prompt_tokens=100,
        completion_tokens=20,
    )


def _project(store: Store) -> None:
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [
            {
                "item_id": f"q{i:02d}",
                "generator": "gpt" if i % 2 else "llama",
                "fields": {"query": f"This is question number {i}", "response": "An answer."},
            }
            for i in range(N_ITEMS)
        ],
    )
    store.import_labels(
        "ir",
        [
            {
                "item_id": f"q{i:02d}",
                "annotator": who,
                "field": "resolution",
                "value": 0.6,
                "status": "submitted",
            }
            for i in range(N_ITEMS)
            for who in ("ann", "bob")
        ],
    )


def _progress_done(page) -> int:
    text = page.locator('[data-testid="stProgress"]').first.inner_text()
    found = re.search(r"(\d+) / (\d+) done", text)
    assert found, text
    return int(found.group(1))


def _choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the multiselect labelled ``label``."""
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text=label)
    box.locator("input").click()
    page.get_by_role("option", name=option).click()
    page.keyboard.press("Escape")
    wait_for_streamlit(page)  # the run with the choice has ended: a click now counts it


def test_batch_run_survives_a_reload_and_lands_in_the_audit(sqlite_url: str) -> None:
    _project(Store(sqlite_url))
    with ScriptedLLM(default_delay_s=0.3) as llm:
        llm.handler = _judge
        env = {
            "WORKBENCH_LLM_BASE_URL": llm.base_url,
            "WORKBENCH_LLM_API_KEY": "k",
            "WORKBENCH_LLM_MODEL": llm.model,
            "WORKBENCH_LLM_CONCURRENCY": "1",
        }
        with running_app(sqlite_url, env) as app, browser_page() as page:
            open_page(page, app, "evaluate?project=ir")
            page.get_by_role("heading", name="Evaluate").wait_for()
            _choose(page, "Evaluators", "intent_resolution")
            page.get_by_role("button", name="Start").click()
            page.get_by_text(re.compile(r"Job \d+")).first.wait_for()
            deadline = time.monotonic() + 30
            while _progress_done(page) < 3 and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            before = _progress_done(page)
            assert 0 < before < N_ITEMS, "the run should be under way, not finished"
            screenshot(page, "audit-evaluate-running", full_page=False)

            page.reload()  # a new session: state comes back from the job row
            wait_for_streamlit(page)
            page.get_by_text(re.compile(r"Job \d+")).first.wait_for()
            after_reload = _progress_done(page)
            assert after_reload >= before
            assert page.get_by_text("running").first.is_visible()
            deadline = time.monotonic() + 10  # the fragment keeps reading the row
            while _progress_done(page) <= after_reload and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            assert _progress_done(page) > after_reload
            page.get_by_text(f"{N_ITEMS} / {N_ITEMS} done").first.wait_for(timeout=30_000)
            page.get_by_text("done", exact=True).first.wait_for()
            screenshot(page, "audit-evaluate-done", full_page=False)
            assert llm.calls == N_ITEMS

            page.get_by_role("link", name="See the results in the audit").click()
            wait_for_streamlit(page)
            page.get_by_role("heading", name="Metric audit").wait_for()
            page.locator('[data-testid="stDataFrame"]').first.wait_for()
            chosen = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Evaluators")
            assert "intent_resolution" in chosen.inner_text()
            # people said 0.6 everywhere; the judge 0.0, 0.2, ... 1.0 by item number: |Δ| >= 0.25
            # on items n % 6 in {0, 1, 5} (11 items), and q00 (Δ -0.6) heads the table.
            differs = page.locator('[data-testid="stMetric"]').filter(has_text="Metric differs")
            assert differs.locator('[data-testid="stMetricValue"]').inner_text() == "11"
            assert "q00" in page.locator("h3").filter(has_text="Item").first.inner_text()
            screenshot(page, "audit-table-after-run", full_page=False)


def test_new_user_reaches_the_most_disagreeing_fact_grid_in_two_clicks(sqlite_url: str) -> None:
    from demo.loading import load_demo

    load_demo(Store(sqlite_url))
    with running_app(sqlite_url) as app, browser_page() as page:
        open_page(page, app)
        screenshot(page, "audit-demo-0-home", full_page=False)
        # click 1: pick the intent-match demo in the sidebar
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.locator('[data-testid="stSelectbox"]').first.click()
        page.get_by_role("option", name="demo-intent-match").click()
        wait_for_streamlit(page)
        # click 2: the Audit page
        sidebar.get_by_role("link", name="Audit").click()
        wait_for_streamlit(page)
        page.get_by_role("heading", name="Metric audit").wait_for()
        page.get_by_text("Gold facts (recall)").first.wait_for()
        screenshot(page, "audit-demo-1-audit", full_page=False)
        # the most disagreeing item is open, its fact grid showing which facts differ
        heading = page.locator("h3").filter(has_text="Item").first.inner_text()
        assert "lights" in heading
        assert page.get_by_text(re.compile(r"fact\(s\)")).first.is_visible()
        page.get_by_text("Gold facts (recall)").first.scroll_into_view_if_needed()
        screenshot(page, "audit-demo-2-fact-grid", full_page=False)
        screenshot(page, "audit-demo-3-full", full_page=True)
