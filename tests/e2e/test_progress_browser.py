"""Real browser at 1440x1000: the all-projects Progress table fits the page (issue #14 point 8)."""

from __future__ import annotations

import pytest

from tests.e2e.harness import browser_page, open_page, running_app, screenshot

pytestmark = pytest.mark.e2e

# Widths of the main block and of the all-projects table (its whole grid, scrolled or not).
WIDTHS = """() => {
    const main = document.querySelector('[data-testid=stMainBlockContainer]');
    const grid = document.querySelector('[data-testid=stDataFrame]');
    const inner = grid.querySelector('.dvn-scroller') || grid;
    return {main: [main.scrollWidth, main.clientWidth], grid: [grid.getBoundingClientRect().right,
            main.getBoundingClientRect().right], inner: [inner.scrollWidth, inner.clientWidth]};
}"""


def test_all_projects_table_is_no_wider_than_the_page(demo: str) -> None:
    with running_app(demo) as app, browser_page(1440, 1000) as page:
        open_page(page, app, "progress?project=demo-intent-match")
        page.get_by_role("heading", name="All projects").wait_for()
        page.locator('[data-testid="stDataFrame"]').first.wait_for()
        w = page.evaluate(WIDTHS)
        screenshot(page, "progress-1440", full_page=False)
        assert w["main"][0] <= w["main"][1], w  # the main block does not scroll sideways
        assert w["grid"][0] <= w["grid"][1] + 1, w  # the table ends inside it
        assert w["inner"][0] <= w["inner"][1] + 1, w  # and shows every column, unscrolled
