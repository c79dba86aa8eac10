"""Real browser: at 1024 px every kind of disagreement on the Audit page can be seen and
clicked (the last ones were cut off in a strip beside the generator and split filters)."""

from __future__ import annotations

import pytest

from tests.e2e.harness import browser_page, open_page, running_app, screenshot

pytestmark = pytest.mark.e2e

#: Each pill of the "Kind of disagreement" control, and whether it is drawn whole inside
#: the element that clips it.
PILLS = """() => {
  const label = [...document.querySelectorAll('[data-testid="stWidgetLabel"]')]
    .find((e) => e.innerText.includes('Kind of disagreement'));
  const widget = label.closest('[data-testid="stElementContainer"]');
  const clip = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return p;
    }
    return document.body;
  };
  return [...widget.querySelectorAll('button')].filter((b) => b.innerText.trim()).map((b) => {
    const r = b.getBoundingClientRect(), c = clip(b).getBoundingClientRect();
    return [b.innerText, r.left >= c.left - 1 && r.right <= c.right + 1];
  });
}"""


def test_every_kind_of_disagreement_shows_whole_at_1024_px(demo: str) -> None:
    with running_app(demo) as app, browser_page(width=1024, height=900) as page:
        open_page(page, app, "audit?project=demo-judge-study")
        page.get_by_text("Kind of disagreement").first.wait_for()
        screenshot(page, "audit-filters-1024", full_page=False)
        pills = page.evaluate(PILLS)
        names = ["humans disagree", "metric differs", "agree", "no human labels"]
        assert [name for name, _ in pills] == names
        assert all(whole for _, whole in pills), pills
