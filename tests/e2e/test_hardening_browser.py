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


def _peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc status")


def test_the_data_page_refuses_a_parquet_page_bomb_in_one_line(demo: str) -> None:
    """Issue #37, point 1, in a running app: the 13 KB file whose one data page inflates
    to 400 MiB is refused on upload with one line, no traceback, nothing imported, and the
    server's peak memory grows by far less than the page would take."""
    from pathlib import Path

    from annotation_store import Store

    bomb = Path(__file__).resolve().parents[1] / "data" / "hostile" / "page_bomb.parquet"
    before_items = len(Store(demo).items("demo-intent-match"))
    with running_app(demo) as app, browser_page(1440, 1000) as page:
        _open(page, app, "data?project=demo-intent-match")
        peak_before = _peak_rss_mb(app.process.pid)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(bomb))
        page.get_by_role("button", name="Import items").click()
        alert = page.locator("[data-testid=stAlert]").filter(has_text="page_bomb.parquet")
        alert.wait_for()
        wait_for_streamlit(page, SLOW_MS)
        text = alert.inner_text().strip()
        assert "decompresses to 400 MiB, over the cap of 200 MiB" in text, text
        assert len(text.splitlines()) == 1, text
        assert page.get_by_text("Reading the file").count() == 0  # no bar left half-filled
        screenshot(page, "data_page_refuses_page_bomb", full_page=False)
        grown = _peak_rss_mb(app.process.pid) - peak_before
        assert grown < 150, f"the server's peak memory grew by {grown:.0f} MB"
    assert len(Store(demo).items("demo-intent-match")) == before_items
