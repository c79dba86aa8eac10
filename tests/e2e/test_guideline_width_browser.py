"""Real browser: the Annotate page's guideline stays readable at 1024 px (it goes under
the item) and keeps its side column at 1440 px."""

from __future__ import annotations

import pytest

from tests.e2e.harness import browser_page, open_page, running_app, screenshot

pytestmark = pytest.mark.e2e

BOXES = """() => {
  const box = (e) => e && e.getBoundingClientRect();
  const guideline = [...document.querySelectorAll('[data-testid="stExpander"] summary')]
    .find((e) => e.innerText.includes('Guideline'));
  const side = box(guideline.closest('[data-testid="stColumn"]'));
  const item = box(document.querySelector('.st-key-action_bar'));
  return {side: [side.left, side.top, side.width], item: [item.left, item.bottom]};
}"""


def test_the_guideline_goes_under_the_item_when_the_window_is_narrow(demo: str) -> None:
    with running_app(demo) as app:
        for width in (1024, 1440):
            with browser_page(width=width, height=900) as page:
                open_page(page, app, "annotate?project=demo-intent-match")
                page.get_by_text("Guideline", exact=True).first.wait_for()
                screenshot(page, f"guideline-{width}")
                got = page.evaluate(BOXES)
                (side_left, side_top, side_width), (item_left, item_bottom) = got.values()
                if width == 1024:  # under the item, as wide as it: a readable line
                    assert side_width > 400 and side_top > item_bottom, got
                    assert abs(side_left - item_left) < 2, got
                else:  # beside it
                    assert side_left > item_left + 400 and side_width > 200, got
