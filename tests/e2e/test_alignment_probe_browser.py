"""Real browser: one click on the Alignment page runs a swap probe of a judge version; the
version's evaluation card then shows the share of decisions that changed, with n."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from annotation_store import Store
from demo.loading import load_demo
from tests.e2e.harness import browser_page, open_page, running_app, screenshot
from tests.e2e.test_judges_browser import _pick
from tests.support.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.e2e
PROJECT = "demo-intent-match"
TOML = Path(__file__).parents[1] / "data" / "judges" / "same_task.toml"
LABEL = "judge:same-task v1"


def _reply(request: dict[str, Any]) -> Reply:
    """1 when the text shown first is alarm's or dinner's gold text (so the swap changes
    exactly those two decisions)."""
    text = " ".join(m["content"] for m in request["messages"] if m["role"] == "user")
    first = re.search(r"Gold intent: (.*)", text).group(1)
    return Reply(content=json.dumps({"answer": int(first.startswith(("Set an", "Book a")))}))


def _probe_done(url: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        store = Store(url)
        try:
            done = [
                r
                for r in store.runs(PROJECT)
                if r.signature.get("settings", {}).get("probe") == "swap" and r.status == "done"
            ]
        finally:
            store.close()
        if done:
            return
        time.sleep(1)
    raise AssertionError("the swap probe run did not finish")


def test_swap_probe_from_the_alignment_page(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    store = Store(sqlite_url)
    load_demo(store)
    with ScriptedLLM() as llm:
        llm.handler = _reply
        env = {
            "WORKBENCH_LLM_BASE_URL": llm.base_url,
            "WORKBENCH_LLM_API_KEY": "test-key",
            "WORKBENCH_LLM_MODEL": llm.model,
        }
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        save_judge(store, "same-task", TOML.read_text())
        run_evaluator(store, PROJECT, "judge:same-task")
        store.close()
        with running_app(sqlite_url, env) as app, browser_page() as page:
            open_page(page, app, f"alignment?project={PROJECT}")
            page.get_by_role("heading", name=f"Alignment · {PROJECT}").wait_for(timeout=60_000)
            if page.get_by_text("Field", exact=True).count():
                _pick(page, "Field", "match")
            _pick(page, "Probe run of", LABEL)
            page.get_by_role("button", name="Run swap probe").click()
            page.get_by_text(re.compile(r"Probe run queued as job \d+")).wait_for()
            _probe_done(sqlite_url)
            open_page(page, app, f"alignment?project={PROJECT}")
            page.get_by_role("heading", name="Evaluation card").wait_for(timeout=60_000)
            if page.get_by_text("Field", exact=True).count():
                _pick(page, "Field", "match")
            _pick(page, "Version", LABEL)
            row = page.locator("tr").filter(has_text="position swap")
            row.filter(has_text="0.333 [0.097, 0.700] of decisions changed").wait_for(
                timeout=60_000
            )
            screenshot(page, "alignment-swap-probe", full_page=False)
    store = Store(sqlite_url)
    runs = [r for r in store.runs(PROJECT) if r.evaluator == "judge:same-task"]
    assert sorted(r.signature["settings"].get("probe") or "" for r in runs) == ["", "swap"]
    assert {r.signature["version"] for r in runs} == {"1"}
    store.close()
