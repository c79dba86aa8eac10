"""Real browser: the app shell on the demo, and deep links on a freshly started server."""

from __future__ import annotations

import re

import pytest

from annotation_store import Store
from demo.loading import load_demo
from tests.e2e.harness import browser_page, running_app, screenshot, wait_for_streamlit

pytestmark = pytest.mark.e2e


def test_a_new_user_sees_the_demo_projects_and_a_deep_link_works_after_a_restart(
    sqlite_url: str,
) -> None:
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    with running_app(sqlite_url) as app, browser_page() as page:
        # The very first request of this server is a deep link (no session ran app.py yet).
        page.goto(f"{app.url}/annotate?project=demo-intent-match")
        # The page's own run hands over to app.py, which forwards back to Annotate; the
        # sidebar is drawn by app.py before the forward, so wait for the URL itself.
        page.wait_for_url(re.compile(r"/annotate\?(.*&)?project=demo-intent-match"), timeout=30_000)
        page.wait_for_function(
            """() => (document.querySelector('[data-testid="stSidebar"]') || {innerText: ''})
                .innerText.includes('Signed in as')""",
            timeout=30_000,
        )
        wait_for_streamlit(page)
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Home" in nav and "Annotate" in nav and "app" not in nav.split()
        assert "Signed in as admin" in page.locator('[data-testid="stSidebar"]').inner_text()
        assert "/annotate" in page.url and "project=demo-intent-match" in page.url

        page.goto(f"{app.url}/?project=demo-intent-match")
        wait_for_streamlit(page)
        assert (
            "Continue with demo-intent-match" in page.locator('[data-testid="stMain"]').inner_text()
        )
        page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
        options = page.locator('[role="option"]').all_inner_texts()
        assert sorted(options) == [
            "demo-actionability",
            "demo-dialogue",
            "demo-intent-match",
            "demo-intent-resolution",
            "demo-judge-study",
        ]
        page.keyboard.press("Escape")
        screenshot(page, "home")
