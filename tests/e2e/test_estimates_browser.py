"""Real browser: labelling an item on the Annotate page moves the live PPI++ estimate and
its n in the side panel (issue 29 point 6)."""

from __future__ import annotations

import re

import pytest

from annotation_store import Store
from tests.e2e.harness import (
    browser_page,
    open_page,
    ordinary_annotate_page,
    press,
    running_app,
    screenshot,
    wait_for_streamlit,
    wait_until,
)
from tests.support.estimates_project import build

pytestmark = pytest.mark.e2e


def _overall(page) -> str:
    line = page.locator('[data-testid="stSidebar"]').get_by_text(re.compile(r"^overall "))
    return line.first.inner_text()


def test_labelling_an_item_moves_the_live_estimate(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    build(store, "p", n_items=60, n_labelled=20)
    with running_app(sqlite_url) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        open_page(page, app, "annotate?project=p")
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text("Estimates (PPI++)").wait_for()
        sidebar.get_by_text("n 20 people / 60 judged").first.wait_for()
        before = _overall(page)
        item = re.search(r"item=([\w-]+)", page.url)
        press(page, "1")
        wait_for_streamlit(page)
        page.get_by_role("button", name=re.compile(r"^Submit")).first.click()
        wait_for_streamlit(page)
        wait_until(
            page,
            lambda: "n 21 people / 60 judged" in _overall(page),
            lambda: f"the panel still says {_overall(page)!r} (item {item})",
            40,
        )
        screenshot(page, "estimates-live-panel", full_page=False)
        assert _overall(page) != before
    store.close()
