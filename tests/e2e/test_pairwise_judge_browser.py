"""Real browser: on a declared pairwise question's Alignment page, one click runs the swap
probe of a pairwise judge version; the table then shows its position consistency (MT-Bench)
with CI and n, and the conservative verdict's agreement with people."""

from __future__ import annotations

import re
import time

import pytest

from annotation_store import Store
from tests.e2e.harness import browser_page, open_page, running_app, screenshot
from tests.e2e.test_judges_browser import _pick
from tests.support.kind_examples import EXAMPLES, example_project
from tests.support.scripted_llm import ScriptedLLM
from tests.test_pairwise_judge import CHOICES, PEOPLE, _judge

pytestmark = pytest.mark.e2e
LABEL = "judge:pref-judge v1"


def _probe_done(url: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        store = Store(url)
        try:
            done = [
                r
                for r in store.runs("pref")
                if r.signature.get("settings", {}).get("probe") == "swap" and r.status == "done"
            ]
        finally:
            store.close()
        if done:
            return
        time.sleep(1)
    raise AssertionError("the swap probe run did not finish")


def test_pairwise_swap_probe_from_the_alignment_page(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs.runner import run_evaluator
    from workbench_api.judges import save_judge

    store = Store(sqlite_url)
    example_project(store, "pairwise_preference", "pref")
    for item, answers in CHOICES.items():
        for who, choice in zip(PEOPLE, answers, strict=True):
            value = {"choice": choice, "shown": ["answer_a", "answer_b"]}
            store.save_label("pref", item, who, "preference", value, status="submitted")
    with ScriptedLLM() as llm:
        llm.handler = _judge
        env = {
            "WORKBENCH_LLM_BASE_URL": llm.base_url,
            "WORKBENCH_LLM_API_KEY": "test-key",
            "WORKBENCH_LLM_MODEL": llm.model,
        }
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        save_judge(store, "pref-judge", (EXAMPLES / "pairwise_judge.toml").read_text())
        run_evaluator(store, "pref", "judge:pref-judge")
        store.close()
        with running_app(sqlite_url, env) as app, browser_page() as page:
            open_page(page, app, "alignment?project=pref")
            page.get_by_role("heading", name="Alignment · pref").wait_for(timeout=60_000)
            row = page.locator("tr").filter(has_text=LABEL)
            row.filter(has_text="0.417 [0.193, 0.680] (n 12)").wait_for(timeout=60_000)
            _pick(page, "Probe run of", LABEL)
            page.get_by_role("button", name="Run swap probe").click()
            page.get_by_text(re.compile(r"Probe run queued as job \d+")).wait_for()
            _probe_done(sqlite_url)
            open_page(page, app, "alignment?project=pref")
            row = page.locator("tr").filter(has_text=LABEL)
            row.filter(has_text="0.500 [0.150, 0.850] (n 4)").wait_for(timeout=60_000)
            assert row.filter(has_text="0.250 [0.089, 0.532] (n 12)").count() == 1
            screenshot(page, "alignment-pairwise-swap", full_page=False)
