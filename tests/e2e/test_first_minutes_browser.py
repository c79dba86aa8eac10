"""Real browser: an analyst's first screens at 1024 and 1440 px, light and dark.

Below 1200 px the side panel starts folded (the page gets the window's width) and stays
open once the user opens it; no form control cuts its option names or label (the Task
kinds form with a Likert question, the longest type name); the Alignment probes table
and Evaluate's evaluator list are drawn. Screenshots go to
test-output/screenshots/first-<scheme>-<width>-<page>.png.
"""

from __future__ import annotations

import pytest

from tests.e2e.harness import browser_page, running_app, screenshot, wait_for_streamlit

pytestmark = pytest.mark.e2e

#: page name -> path and project
PAGES = {
    "home": "?project=demo-intent-match",
    "agreement": "agreement?project=demo-intent-match",
    "alignment": "alignment?project=demo-judge-study",
    "evaluate": "evaluate?project=demo-intent-match",
}

#: Text of the main area's select boxes, check boxes and widget labels that runs past
#: the box clipping it (an ellipsis or a hidden overflow): a cut option name or label.
CUT_TEXT = """
() => {
  const widgets = '[data-testid="stSelectbox"], [data-testid="stMultiSelect"], '
    + '[data-testid="stCheckbox"], [data-testid="stRadio"], [data-testid="stWidgetLabel"]';
  const main = document.querySelector('[data-testid="stMain"]');
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const cut = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el.closest(widgets) || !el.checkVisibility()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const right = range.getBoundingClientRect().right;
    for (let box = el; box && box !== main; box = box.parentElement) {
      const s = getComputedStyle(box);
      if (s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') {
        if (right > box.getBoundingClientRect().right + 1) cut.push(node.textContent.trim());
        break;
      }
    }
  }
  return cut;
}
"""

#: The first table is wider than its frame (it scrolls sideways, its last columns cut):
#: a data grid's scroller, or a static table (Home's) or any box inside it.
TABLE_SCROLLS = """() => {
  const table = document.querySelector(
    '[data-testid="stDataFrame"] .dvn-scroller, [data-testid="stTable"]');
  if (!table) throw new Error('no table on the page');
  const boxes = [table, ...table.querySelectorAll('*')];
  return boxes.some(b => b.scrollWidth > b.clientWidth + 1 && b.clientWidth > 0);
}"""

FOLDED = """() => document.querySelector('[data-testid="stSidebar"]')
    .getAttribute('data-collapsed') === 'true'"""


def _add_likert_question(page: object) -> None:
    """On the Task kinds page: a Likert question through the form's own controls."""
    page.locator(".st-key-kf_new_type input").click()  # type: ignore[attr-defined]
    page.keyboard.type("Likert")  # type: ignore[attr-defined]
    page.get_by_role("option", name="Likert (a label per level)", exact=True).click()  # type: ignore[attr-defined]
    wait_for_streamlit(page)
    page.locator(".st-key-kf--add_question button").click()  # type: ignore[attr-defined]
    wait_for_streamlit(page)
    page.locator(".st-key-kf_question_0").scroll_into_view_if_needed()  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(1500)  # 2 schemes x 2 widths x 5 pages on a shared 2-core machine
def test_first_screens_fold_the_side_panel_when_narrow_and_cut_no_control(demo: str) -> None:
    problems = []
    with running_app(demo, timeout=180) as app:
        for scheme in ("light", "dark"):
            for width in (1024, 1440):
                with browser_page(width=width, height=900, color_scheme=scheme) as page:
                    page.set_default_timeout(90_000)  # a busy machine is not a layout bug
                    page.goto(app.url)
                    wait_for_streamlit(page, timeout=120_000)
                    for name, path in PAGES.items():
                        page.goto(f"{app.url}/{path}")
                        wait_for_streamlit(page, timeout=120_000)
                        # folded below 1200 px (the script waits for the sidebar's button)
                        if width < 1200:
                            page.wait_for_function(FOLDED, timeout=30_000)
                        elif page.evaluate(FOLDED):
                            problems.append(f"{scheme} {width}px {name}: side panel folded")
                        screenshot(page, f"first-{scheme}-{width}-{name}", full_page=False)
                        if name == "home" and page.evaluate(TABLE_SCROLLS):
                            problems.append(f"{scheme} {width}px home: the table scrolls sideways")
                        problems += [
                            f"{scheme} {width}px {name}: {t}" for t in page.evaluate(CUT_TEXT)
                        ]
                    page.goto(f"{app.url}/kinds")
                    wait_for_streamlit(page, timeout=120_000)
                    _add_likert_question(page)
                    page.wait_for_timeout(300)
                    screenshot(page, f"first-{scheme}-{width}-kinds", full_page=False)
                    problems += [f"{scheme} {width}px kinds: {t}" for t in page.evaluate(CUT_TEXT)]
    assert problems == []


def test_a_side_panel_opened_at_1024_px_stays_open_on_the_next_page(demo: str) -> None:
    with running_app(demo, timeout=180) as app, browser_page(width=1024, height=900) as page:
        page.set_default_timeout(90_000)
        page.goto(app.url)
        wait_for_streamlit(page, timeout=120_000)
        page.wait_for_function(FOLDED, timeout=30_000)
        page.locator('[data-testid="stExpandSidebarButton"]').click()
        page.wait_for_function(f"() => !({FOLDED})()")
        page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Agreement").click()
        wait_for_streamlit(page, timeout=120_000)
        page.wait_for_timeout(1000)  # time enough for a script to fold it again
        assert not page.evaluate(FOLDED)
        screenshot(page, "first-light-1024-opened-agreement", full_page=False)


def test_a_new_visit_opens_on_the_project_this_browser_used_last(demo: str) -> None:
    with running_app(demo, timeout=180) as app, browser_page() as page:
        page.set_default_timeout(90_000)
        page.goto(app.url)
        wait_for_streamlit(page, timeout=120_000)
        assert "project=demo-intent-match" in page.url  # the README's project first
        page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
        page.get_by_role("option", name="demo-judge-study", exact=True).click()
        wait_for_streamlit(page)
        page.wait_for_function("() => document.cookie.includes('workbench_project=demo-judge')")
        fresh = page.context.new_page()  # a new session in the same browser
        fresh.goto(app.url)
        wait_for_streamlit(fresh, timeout=120_000)
        fresh.wait_for_url("**project=demo-judge-study**")
        fresh.get_by_text("Continue with demo-judge-study").wait_for()
