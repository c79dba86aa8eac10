"""Real browser at 1440x1000 (issue #14): the action bar is in sight on the longest
view, a refused Submit marks the questions in place, the Progress table fits the page."""

from __future__ import annotations

import pytest

from tests.e2e.harness import (
    browser_page,
    no_horizontal_scroll,
    ordinary_annotate_page,
    running_app,
    screenshot,
    wait_for_streamlit,
)

pytestmark = pytest.mark.e2e


SLOW_MS = 120_000  # this test's own first loads may be slow on a shared machine


def _open(page, app, path: str) -> None:
    page.set_default_timeout(SLOW_MS)
    page.goto(app.url)  # the entry point first (navigation)
    wait_for_streamlit(page, SLOW_MS)
    page.goto(f"{app.url}/{path}")
    wait_for_streamlit(page, SLOW_MS)


IN_VIEW = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth; }"""


def test_action_bar_in_sight_and_refused_submit_marks_in_place(demo: str) -> None:
    with running_app(demo) as app, browser_page(1440, 1000) as page:
        ordinary_annotate_page(page)  # the page's own refused submit
        _open(page, app, "annotate?project=demo-intent-match")
        page.wait_for_url("**item=**")
        wait_for_streamlit(page, SLOW_MS)
        submit = ".st-key-action_bar .st-key-submit button"
        page.wait_for_selector(submit)
        assert page.evaluate(IN_VIEW, submit), "Submit is below the fold"
        page.keyboard.press("Enter")  # nothing answered yet: refused
        wait_for_streamlit(page, SLOW_MS)
        # what is still to answer, right under the item's header (redrawn with each label)
        page.wait_for_selector(".st-key-still_to_answer [data-testid=stAlert]")
        assert page.evaluate(IN_VIEW, ".st-key-still_to_answer [data-testid=stAlert]")
        marks = page.locator("[data-testid=stMain] >> text=answer this")
        assert marks.count() >= 2
        screenshot(page, "annotate_refused_submit", full_page=False)
        assert no_horizontal_scroll(page)


def test_progress_table_fits_the_page(demo: str) -> None:
    with running_app(demo) as app, browser_page(1440, 1000) as page:
        _open(page, app, "progress?project=demo-intent-match")
        page.wait_for_selector("[data-testid=stDataFrame]")
        wait_for_streamlit(page, SLOW_MS)
        assert no_horizontal_scroll(page)
        widths = page.evaluate(
            """() => [...document.querySelectorAll('[data-testid=stDataFrame]')]
                .map(e => e.getBoundingClientRect().right)"""
        )
        assert widths and max(widths) <= 1440, widths
        screenshot(page, "progress_1440", full_page=False)
