"""Real browser: sign in (local accounts), label a fact-level item by keyboard, reload.

Also screenshots every kind's view into test-output/screenshots/ (1440x900).
"""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import ITEMS, make_project
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    no_horizontal_scroll,
    open_page,
    ordinary_annotate_page,
    press,
    running_app,
    screenshot,
    sign_in,
    wait_for_streamlit,
    wait_until,
)

pytestmark = pytest.mark.e2e

SCROLL_MAIN = """where => document.querySelectorAll(
    '[data-testid=stMain], [data-testid=stAppViewContainer]')
    .forEach(e => e.scrollTo(0, where === 'top' ? 0 : e.scrollHeight))"""
GOLD = "CMCCM"
PRED = "CMCC"


def _assert_not_shown(page, app, hidden: str) -> None:
    """A page the user's role may not open says so, never drawing its content."""
    open_page(page, app, f"{hidden}?project=intent_match")
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "You do not have access to this page." in main, hidden
    assert page.locator('[data-testid="stDataFrame"]').count() == 0, hidden
    assert page.get_by_role("textbox", name="Password").count() == 0, hidden  # signed in
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text().lower()
    assert hidden not in nav, hidden


def _wait_labelled(page, store: Store, n: int, timeout_s: float = 20) -> None:
    """Wait until ``n`` answers are stored, then for the rerun to finish drawing.

    The next digit must not be pressed before the highlight has moved on.
    """

    def answers() -> int:
        labels = store.item_state("intent_match", "im1", "ana")["labels"]
        done = sum(1 for v in labels.get("gold_fact_labels", []) if v != "?")
        done += sum(1 for v in labels.get("predicted_fact_labels", []) if v != "?")
        return done + ("match" in labels)

    wait_until(
        page,
        lambda: answers() >= n,
        lambda: f"only {answers()} of {n} answers were saved",
        timeout_s,
    )
    wait_for_streamlit(page)


def _selected(page) -> list[str]:
    """Texts of highlighted option buttons in page order (not the Submit button)."""
    buttons = page.locator('[data-testid="stMain"] button[data-testid="stBaseButton-primary"]')
    texts = buttons.filter(visible=True).all_inner_texts()
    # a label may carry its shortcut hint ("C  1"); keep the label only
    return [
        " ".join(t.split()[:2]) if t.startswith("same") else t.split()[0]
        for t in texts
        if "submit" not in t.lower()
    ]


def test_keyboard_labelling_survives_reload(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    make_project(store, "intent_match", k=1)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        open_page(page, app)
        assert page.get_by_role("textbox", name="Password").is_visible()
        sign_in(page, "ana", "ana-password")
        for hidden in ("audit", "agreement", "evaluate", "progress"):  # blind: not for annotators
            _assert_not_shown(page, app, hidden)
        open_page(page, app, "annotate?project=intent_match")
        page.wait_for_url("**item=1")  # an annotator's own number, not the item id
        assert "im1" not in page.content()  # nor anywhere in the page's HTML
        for i, label in enumerate(GOLD + PRED):
            press(page, "1" if label == "C" else "0")
            _wait_labelled(page, store, i + 1)
        press(page, "1")  # same task: yes
        _wait_labelled(page, store, len(GOLD + PRED) + 1)
        assert store.item_state("intent_match", "im1", "ana")["labels"] == {
            "gold_fact_labels": list(GOLD),
            "predicted_fact_labels": list(PRED),
            "match": 1,
        }
        press(page, "Enter")
        page.wait_for_url("**item=2")
        assert store.item_state("intent_match", "im1", "ana")["status"] == "submitted"
        press(page, "ArrowLeft")
        page.wait_for_url("**item=1")
        press(page, "k")  # focus back on the last fact; change it by keyboard
        page.reload()
        wait_for_streamlit(page)
        assert page.get_by_role("textbox", name="Password").count() == 0  # still signed in
        assert page.url.endswith("item=1")
        page.wait_for_function(
            """() => document.querySelectorAll(
                '[data-testid="stMain"] button[data-testid="stBaseButton-primary"]').length >= 11"""
        )
        assert _selected(page) == [*GOLD, *PRED, "same task"]
        screenshot(page, "intent_match_after_reload", full_page=False)
        assert no_horizontal_scroll(page)
        page.get_by_role("button", name="Sign out").click()  # ends the remembered session
        wait_for_streamlit(page)
        assert page.get_by_role("textbox", name="Password").count() == 1
        page.reload()
        wait_for_streamlit(page)
        assert page.get_by_role("textbox", name="Password").count() == 1
    assert asg.queue(store, "intent_match", "ana") == ["im1", "im2"]
    store.close()


def test_screenshot_of_each_kind(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    for kind in ITEMS:
        make_project(store, kind)
    store.ensure_annotator("admin", "admin")
    # a half-labelled intent-match item shows focus, choices and live scores
    store.save_label("intent_match", "im1", "admin", "gold_fact_labels", list("CM???"))
    store.save_label("intent_match", "im1", "admin", "predicted_fact_labels", list("CCCM"))
    with running_app(sqlite_url) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        for kind, items in ITEMS.items():
            first = items[0]["item_id"]
            open_page(page, app, f"annotate?project={kind}&item={first}")
            page.wait_for_function(
                "id => (document.querySelector('[data-testid=stMain] h4') || {}).innerText"
                "?.includes(id)",
                arg=first,
            )
            page.locator('[data-testid=stMain] button:has-text("Submit")').wait_for()
            wait_for_streamlit(page)
            page.evaluate(SCROLL_MAIN, "top")
            screenshot(page, f"annotate_{kind}", full_page=False)
            assert no_horizontal_scroll(page), kind
            if kind == "actionability":  # explanation links open in a new tab
                link = page.locator('[data-testid=stMain] a[href^="https://en.wikipedia"]')
                assert link.get_attribute("target") == "_blank"
            page.evaluate(SCROLL_MAIN, "bottom")
            page.wait_for_timeout(300)
            screenshot(page, f"annotate_{kind}_bottom", full_page=False)
    store.close()


def test_the_evaluator_panel_is_drawn_when_its_expander_opens(demo: str) -> None:
    """The side column's Evaluators expander builds its content only while open: a click
    on its header reruns the side column, which then draws the panel (fact grids)."""
    with running_app(demo) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        open_page(page, app, "annotate?project=demo-intent-match&item=alarm")
        box = page.locator('[data-testid="stExpander"]').filter(has_text="Evaluators")
        box.wait_for()
        assert page.locator('[data-testid="stDataFrame"]').count() == 0
        box.locator("summary").click()
        box.get_by_text("Gold facts (recall)").wait_for(timeout=30_000)
        grids = box.locator('[data-testid="stDataFrame"]')
        grids.nth(1).wait_for(timeout=30_000)  # the data grid's code loads on first use
        assert grids.count() == 2
