"""Real browser: first paint, light / dark theme, and every page at 1024 px and 1440 px.

Screenshots go to test-output/screenshots/layout-<width>-<page>.png.
"""

from __future__ import annotations

import pytest

from tests.e2e.harness import (
    browser_page,
    no_horizontal_scroll,
    running_app,
    screenshot,
    wait_for_streamlit,
)

pytestmark = pytest.mark.e2e

#: The admin's navigation (single-user mode): page title -> URL path.
PAGES = {
    "Home": "",
    "Annotate": "annotate",
    "Agreement": "agreement",
    "Alignment": "alignment",
    "Audit": "audit",
    "Estimates": "estimates",
    "Evaluate": "evaluate",
    "Judges": "judges",
    "Data": "data",
    "Task kinds": "kinds",
    "Progress": "progress",
    "Users & settings": "admin",
}

#: Records every sidebar navigation link text the page ever shows, from the first paint.
NAV_RECORDER = """
window.__navSeen = new Set();
new MutationObserver(() => {
  document.querySelectorAll('[data-testid="stSidebarNav"] a').forEach((a) => {
    const label = a.querySelector('span[label]');
    window.__navSeen.add(label ? label.getAttribute('label') : a.innerText.trim());
  });
}).observe(document, {childList: true, subtree: true, characterData: true});
"""

#: Elements of the main area sticking out of the viewport, and buttons cut off by the
#: column they sit in (tables, charts and code scroll inside their own frame).
OVERFLOWING = """
() => {
  const scrolls = '[data-testid="stDataFrame"], [data-testid="stPlotlyChart"], .stCode';
  const out = [...document.querySelectorAll('[data-testid="stMain"] *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
      && e.checkVisibility({visibilityProperty: true}) && !e.closest(scrolls));
  const cut = [...document.querySelectorAll('[data-testid="stMain"] button')]
    .filter((b) => {  // what a closed expander holds is not drawn
      const column = b.closest('[data-testid="stColumn"]');
      return column && b.checkVisibility({visibilityProperty: true})
        && b.getBoundingClientRect().right
        > column.getBoundingClientRect().right + 1;
    });
  return [...out, ...cut].slice(0, 5).map((e) => (e.getAttribute('data-testid')
    || e.tagName) + ': ' + (e.innerText || '').slice(0, 60));
}
"""


def test_first_paint_shows_only_the_apps_own_navigation(demo: str) -> None:
    with running_app(demo) as app, browser_page() as page:
        page.add_init_script(NAV_RECORDER)
        page.goto(app.url)  # the server's very first session
        page.wait_for_function(
            """() => (document.querySelector('[data-testid="stSidebarNav"]') || {innerText: ''})
                .innerText.includes('Annotate')""",
            timeout=90_000,
        )
        wait_for_streamlit(page)
        seen = set(page.evaluate("() => [...window.__navSeen]"))
        assert seen == set(PAGES), f"the sidebar showed {sorted(seen - set(PAGES))}"
        assert page.title() == "Metric-audit workbench"  # st.set_page_config, once, in app.py
        icon = page.evaluate("() => document.querySelector('link[rel~=icon]').href")
        # the tab icon of st.set_page_config, served by the app itself (no font host)
        assert icon.startswith(app.url + "/") and icon.endswith(".png"), icon


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_theme_follows_the_browsers_colour_scheme(demo: str, scheme: str) -> None:
    with running_app(demo) as app, browser_page(color_scheme=scheme) as page:
        page.goto(app.url)
        wait_for_streamlit(page, timeout=90_000)
        rgb = page.evaluate(
            """() => getComputedStyle(document.querySelector('[data-testid="stApp"]'))
                .backgroundColor.match(/\\d+/g).slice(0, 3).map(Number)"""
        )
        luminance = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255
        assert (luminance > 0.5) == (scheme == "light"), rgb


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 16 page loads in a real browser
def test_every_page_fits_at_1024_and_1440_px(demo: str) -> None:
    problems = []
    with running_app(demo) as app:
        for width in (1024, 1440):
            with browser_page(width=width, height=900) as page:
                page.set_default_timeout(90_000)  # screenshots wait for fonts; a busy machine
                for title, path in PAGES.items():
                    if not app.warmed:  # app.py runs first (see harness.open_page)
                        page.goto(app.url)
                        wait_for_streamlit(page, timeout=90_000)
                        app.warmed = True
                    page.goto(f"{app.url}/{path}?project=demo-intent-match")
                    wait_for_streamlit(page, timeout=90_000)  # a slow machine is not a layout bug
                    name = path or "home"
                    screenshot(page, f"layout-{width}-{name}")
                    if not no_horizontal_scroll(page):
                        problems.append(f"{width}px {title}: the page scrolls sideways")
                    for element in page.evaluate(OVERFLOWING):
                        problems.append(f"{width}px {title}: {element}")
    assert problems == []
