"""Real browser: the side panel follows a submit made in the annotation client (#47).

The client marks the live panels as updating the moment an item is submitted, and once
the submit is saved presses their hidden refresh buttons (ui/panel_refresh.py), so the
panel redraws then instead of at its next tick; the new label is counted in the panel's
"N ratings" line, and that redraw takes the client's mark off.
"""

from __future__ import annotations

import pytest

from annotation_store import Store
from bench.annotate_latency import PANEL_KEYS
from bench.side_panel import RATINGS
from demo.loading import load_demo
from tests.e2e.harness import browser_page, running_app, wait_for_streamlit

pytestmark = pytest.mark.e2e

#: Records when a refresh button of a side panel is clicked (capture: before React).
WATCH_CLICKS = """() => { window.__refreshClicks = [];
    document.addEventListener('click', (e) => {
        const box = e.target.closest("[class*='st-key-wb_panel_refresh']");
        if (box) window.__refreshClicks.push([...box.classList].find(
            (c) => c.startsWith('st-key-wb_panel_refresh')));
    }, true); }"""
#: Records whether a panel showed the client's mark (a shown, non-empty mark slot).
WATCH_MARKS = """() => { window.__marked = false;
    const shown = () => [...document.querySelectorAll('.wb-panel-mark')].some(
        (m) => m.textContent.includes('updating with the newest labels') && m.checkVisibility());
    new MutationObserver(() => { window.__marked = window.__marked || shown(); })
        .observe(document.body, {subtree: true, childList: true, characterData: true}); }"""
#: The panels' mark slots: how many, and how many show any text or take any room.
SLOTS = """() => { const all = [...document.querySelectorAll('.wb-panel-mark')];
    return [all.length, all.filter((m) => m.textContent || m.checkVisibility()).length]; }"""


def test_a_submit_in_the_client_redraws_the_side_panel_with_the_new_label(
    sqlite_url: str,
) -> None:
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    with running_app(sqlite_url) as app, browser_page(1440, 1000) as page:
        page.goto(f"{app.url}/annotate?project=demo-judge-study")
        page.wait_for_url("**item=**")
        wait_for_streamlit(page, 60_000)
        page.wait_for_function(f"() => ({RATINGS})() >= 0", timeout=60_000)
        page.wait_for_function("() => window.__wbLane && window.__wbLane.open", timeout=60_000)
        before = page.evaluate(RATINGS)
        page.evaluate(WATCH_CLICKS)
        page.evaluate(WATCH_MARKS)
        slots, shown = page.evaluate(SLOTS)
        assert slots == 2 and shown == 0, "each live panel has its slot, empty and hidden"
        keys = page.evaluate(PANEL_KEYS)
        assert keys, "the client is open on a keyed item"
        for key in keys:
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        page.wait_for_function(f"n => ({RATINGS})() === n + 1", arg=before, timeout=60_000)
        clicks = page.evaluate("() => window.__refreshClicks")
        assert sorted(set(clicks)) == [
            "st-key-wb_panel_refresh_agreement",
            "st-key-wb_panel_refresh_estimates",
        ]
        assert page.evaluate("() => window.__marked"), "the submit marked the panels"
        page.wait_for_function(f"() => ({SLOTS})()[1] === 0", timeout=60_000)
        # hidden from sight and from the tab order
        assert not page.locator("[class*='st-key-wb_panel_refresh'] button").first.is_visible()
