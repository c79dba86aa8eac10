"""Real browser: a batch run shows queued -> running -> done without a reload (#16 p6)."""

from __future__ import annotations

import re

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
    wait_until,
)

pytestmark = pytest.mark.e2e


def test_ser_on_the_dialogue_demo_reaches_the_history_without_a_reload(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    with running_app(sqlite_url) as app, browser_page() as page:
        open_page(page, app, "evaluate?project=demo-dialogue")
        page.get_by_role("heading", name="Evaluate").wait_for()
        box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Evaluators")
        box.locator("input").click()
        page.get_by_role("option", name="ser", exact=True).click()
        page.keyboard.press("Escape")
        wait_for_streamlit(page)  # the run with the choice has ended: a click now counts it
        url = page.url
        page.get_by_role("button", name="Start").click()
        wait_for_job_queued(page, "ser")
        # No reload from here on: the job list re-reads the rows by itself.
        page.get_by_role("heading", name="History").wait_for(timeout=60_000)
        main = page.locator('[data-testid="stMain"]')
        main.get_by_text("No job running.").wait_for(timeout=20_000)
        # the finished job's card reaches the history by itself (it may draw a moment later)
        wait_until(
            page,
            lambda: re.search(r"Job \d+\s*done", main.inner_text().split("History", 1)[-1]),
            lambda: "no finished job in the history: " + main.inner_text()[-300:],
        )
        assert page.url == url
        screenshot(page, "evaluate-ser-finished", full_page=False)
