"""Real browser: text on the app's primary buttons is readable in light and dark (issue #46).

Streamlit draws primary buttons' text white on the theme's primary colour; the dark
theme's light blue made that 2.18:1 (Submit, Start, I agree). Measured here from the
computed colours of the drawn buttons, outside crowd study pages: the ordinary Annotate
page's Submit and its chosen C (green) and M (red) buttons, and the Evaluate page's Start,
each at 4.5:1 or more in both themes.
"""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from tests.annotate_fixtures import ITEMS
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    open_page,
    ordinary_annotate_page,
    running_app,
    sign_in,
    wait_for_streamlit,
)

pytestmark = pytest.mark.e2e

#: WCAG 2.x contrast of two computed CSS colours (rgb()/rgba() over the page colour).
CONTRAST = """(el) => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const s = getComputedStyle(el);
  const text = getComputedStyle(el.querySelector('p') || el).color;
  const [a, b] = [lum(parse(text)), lum(parse(s.backgroundColor))];
  return [(Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), text, s.backgroundColor];
}"""


def _ratio(page, name: str) -> tuple[float, str, str]:
    button = page.locator("[data-testid=stMain]").get_by_role("button", name=name).first
    button.wait_for()
    return tuple(button.evaluate(CONTRAST))


def _chosen(page, label: str) -> tuple[float, str, str]:
    """Choose ``label`` (C or M) on the first fact still open and measure it chosen."""
    options = f"[class*='st-key-opt'][class*='--{label} '] button"
    page.locator(f"{options}[data-testid='stBaseButton-secondary']").first.click()
    wait_for_streamlit(page)
    button = page.locator(f"{options}[data-testid='stBaseButton-primary']").first
    button.wait_for()
    return tuple(button.evaluate(CONTRAST))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_primary_buttons_are_readable(sqlite_url: str, scheme: str) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "intent_match", {"k": 1})
    store.upsert_items("p", ITEMS["intent_match"][:1])
    accounts.add_user(store, "root", "admin", password="root-password")
    with (
        running_app(sqlite_url, LOCAL_AUTH) as app,
        browser_page(color_scheme=scheme) as page,
    ):
        ordinary_annotate_page(page)
        open_page(page, app)
        sign_in(page, "root", "root-password")
        measured = {}
        open_page(page, app, "annotate?project=p")
        measured["Submit"] = _ratio(page, "Submit")
        measured["C chosen"] = _chosen(page, "C")
        measured["M chosen"] = _chosen(page, "M")
        open_page(page, app, "evaluate?project=p")
        measured["Start"] = _ratio(page, "Start")
    low = {k: v for k, v in measured.items() if v[0] < 4.5}
    assert not low, (scheme, measured)
