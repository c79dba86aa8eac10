"""Real browser: an annotator's deep link to a page they may not open (#16, point 13)."""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from demo.loading import load_demo
from tests.e2e.harness import LOCAL_AUTH, browser_page, open_page, running_app, sign_in

pytestmark = pytest.mark.e2e


def test_an_annotators_deep_link_to_audit_says_no_access(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    load_demo(store)
    accounts.add_user(store, "rita", "annotator", password="rita-password")
    store.close()
    with running_app(sqlite_url, env=LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app)
        sign_in(page, "rita", "rita-password")
        for path in ("audit?project=demo-dialogue", "admin"):
            open_page(page, app, path)
            main = page.locator('[data-testid="stMain"]').inner_text()
            assert "You do not have access to this page." in main
            assert "Page not found" not in page.content()
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Audit" not in nav and "Users & settings" not in nav


def test_a_deep_link_survives_sign_in(sqlite_url: str) -> None:
    """A bookmarked /kinds opened while signed out lands on Task kinds after sign-in."""
    store = Store(sqlite_url)
    load_demo(store)
    accounts.add_user(store, "ada", "admin", password="ada-password")
    store.close()
    with running_app(sqlite_url, env=LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app, "kinds")
        sign_in(page, "ada", "ada-password")
        page.wait_for_selector('h1:has-text("Task kinds")', timeout=60_000)
        assert "/kinds" in page.url
