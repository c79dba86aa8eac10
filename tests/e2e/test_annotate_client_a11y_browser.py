"""Real browser: the annotation panel for keyboard and screen-reader users (issue #46).

axe-core (from npm, pinned in package-lock.json; ``npm ci``) finds no WCAG 2.2 A / AA
violation in the panel's own markup in the light and the dark theme; the page beneath is
hidden from assistive technology while the panel is open; options are named with their
question and expose their selected state. Keyboard only: Tab reaches the options in
reading order, Space picks the focused one and the focus stays on it, Enter submits and
never also picks the focused option, and the single-key shortcuts can be turned off.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from accounts import users as accounts
from annotation_store import Store
from crowd import workers as crowd
from studies.flow_settings import set_study
from tests.annotate_fixtures import ITEMS
from tests.e2e.harness import (
    LOCAL_AUTH,
    ROOT,
    browser_page,
    open_page,
    running_app,
    screenshot,
    sign_in,
    wait_for_streamlit,
    wait_until,
)
from tests.support.crowd import DONE_URL, STUDY, TOKEN
from tests.support.value_kind import value_project

pytestmark = pytest.mark.e2e

LANE = "#wb-lane"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def _axe(page, where: str = "#wb-lane") -> list[str]:
    """axe-core's violations in the element ``where`` (the panel): rule id and the first
    offending element."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (make test does)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async ([where, tags]) => (await axe.run(document.querySelector(where),
            {runOnly: {type: 'tag', values: tags}})).violations
            .map((v) => v.id + ': ' + v.nodes.map((n) => n.html).join(' | '))""",
        [where, WCAG],
    )
    return list(found)


def _each_scheme(sqlite_url: str, store: Store, path: str) -> Iterator[tuple[str, Page]]:
    """The app at ``path`` in the light, then the dark theme, each signed in as an
    annotator of its own (so each starts on a fresh item), the lane's first item drawn."""
    people = {"light": "ana", "dark": "bea"}
    for who in people.values():
        accounts.add_user(store, who, "annotator", password=f"{who}-password")
    with running_app(sqlite_url, LOCAL_AUTH) as app:
        for scheme, who in people.items():
            with browser_page(color_scheme=scheme, bypass_csp=True) as page:
                open_page(page, app)
                sign_in(page, who, f"{who}-password")
                open_page(page, app, path)
                page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
                yield scheme, page


def _focused(page) -> str:
    return page.evaluate(
        "() => { const el = document.activeElement;"
        " return el.getAttribute('aria-label') || el.getAttribute('data-fid') || el.tagName; }"
    )


def test_axe_finds_no_violation_in_the_panel_in_light_and_dark(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("im", "intent_match", {"k": 2})
    store.upsert_items("im", ITEMS["intent_match"])
    for scheme, page in _each_scheme(sqlite_url, store, "annotate?project=im"):
        page.keyboard.press("c")  # a chosen option, the focus moved on, a save
        page.wait_for_selector(f"{LANE} button.wb-on")
        page.wait_for_selector(f"{LANE} [data-testid=wbSaving]:has-text('all saved')")
        assert _axe(page) == [], scheme
        # a landmark; the page beneath hidden from assistive technology
        assert page.get_attribute(LANE, "aria-label") == "Annotation panel"
        assert page.get_attribute("[data-testid=stMain]", "aria-hidden") == "true"
        chosen = page.locator(f"{LANE} .wb-row button[aria-pressed=true]")
        assert chosen.count() == 1
        assert chosen.get_attribute("aria-label") == ("C · 1. The user wants to book a table.")
        current = page.locator(f"{LANE} [aria-current=true] .wb-title")
        assert current.inner_text().startswith("2. The party is two people.")
        assert "C · 1. The user wants" in page.inner_text("#wb-live")


def test_keyboard_only_tab_space_enter_and_shortcuts_off(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items(
        "p", [{"item_id": f"b{i}", "fields": {"text": f"Text {i}."}} for i in range(3)]
    )
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, "annotate?project=p")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
        page.wait_for_function("() => window.__wbLane && window.__wbLane.after !== undefined")
        # the panel has the keyboard; Tab goes through its controls in reading order
        assert page.evaluate("() => document.activeElement.tagName") == "H4"
        seen = []
        for _ in range(5):
            page.keyboard.press("Tab")
            seen.append(_focused(page))
        label = "Yes (1) or no (0)"
        assert seen == ["submit", "leave", "shortcuts", f"yes · {label}", f"no · {label}"]
        page.keyboard.press("Shift+Tab")
        assert _focused(page) == f"yes · {label}"
        page.keyboard.press("Space")  # the focused option, picked; the focus stays on it
        page.wait_for_selector(f"{LANE} .wb-row button[aria-pressed=true]")
        assert _focused(page) == f"yes · {label}"
        page.keyboard.press("Tab")  # on "no" now: Enter submits and does not pick it
        assert _focused(page) == f"no · {label}"
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        page.wait_for_function("() => !window.__wbLane.queue.length")
        first = store.item_state("p", "b0", "ana")
        assert first["status"] == "submitted" and first["labels"] == {"label": 1}
        # the focus stays in the panel, on the new item's title
        assert page.evaluate("() => document.activeElement.tagName") == "H4"

        # shortcuts off: a letter or digit does nothing, Enter still submits
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert _focused(page) == "shortcuts"
        page.keyboard.press("Space")
        page.wait_for_selector(f"{LANE} button[data-fid=shortcuts][aria-pressed=false]")
        page.keyboard.press("y")
        page.keyboard.press("1")
        page.wait_for_timeout(500)
        assert page.locator(f"{LANE} .wb-row button[aria-pressed=true]").count() == 0
        assert store.item_state("p", "b1", "ana")["labels"] == {}
        page.keyboard.press("Enter")  # nothing chosen: refused in place, said aloud
        page.wait_for_selector(f"{LANE} .wb-missing")
        assert "Still to answer" in page.inner_text("#wb-live")
        # turned off for the next load too
        page.reload()
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        assert page.get_attribute(f"{LANE} button[data-fid=shortcuts]", "aria-pressed") == "false"


MAIN = "[data-testid=stMain]"


def _main(page) -> str:
    return page.locator(MAIN).inner_text()


def _see(page, text: str) -> None:
    wait_until(page, lambda: text in _main(page), lambda: f"{text!r} never shown: {_main(page)}")


def _click(page, name: str) -> None:
    page.get_by_role("button", name=name).click()
    wait_for_streamlit(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_in_practice_and_completion(sqlite_url: str, scheme: str) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 1}, guideline="Say yes when it is true.")
    store.upsert_items("p", [{"item_id": "i0", "fields": {"text": "Water is wet."}}])
    # two practice items, one answered wrong: half right still qualifies here
    set_study(store, "p", {**STUDY, "gold_rate": 0, "qualification": 0.5})
    link = f"?study=p&token={TOKEN}&PROLIFIC_PID=W1&STUDY_ID=ST1&SESSION_ID=SE1"
    crowd_mode = {"WORKBENCH_AUTH_MODE": "crowd"}
    with running_app(sqlite_url, crowd_mode) as app, browser_page(color_scheme=scheme) as page:
        page.route(f"{DONE_URL}**", lambda route: route.fulfill(body="back on Prolific"))
        open_page(page, app, link)
        _see(page, "Do you take part?")
        _click(page, "I agree, start")
        _see(page, "Say yes when it is true.")
        _click(page, "I have read the guideline")
        # practice in the panel: the training item, then its feedback (a wrong answer:
        # the verdict, the explanation and the expected option marked)
        page.wait_for_selector(f"{LANE} h4:has-text('practice item 1 of 2')")
        assert _axe(page) == [], f"practice item, {scheme}"
        assert page.get_attribute("[data-testid=stMain]", "aria-hidden") == "true"
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} [data-testid=wbPractice]")
        page.wait_for_selector(f"{LANE} button.wb-gold")
        assert _axe(page) == [], f"practice feedback, {scheme}"
        screenshot(page, f"practice_feedback_{scheme}", full_page=False)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('practice item 2 of 2')")
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} [data-testid=wbPractice]")
        page.keyboard.press("Enter")  # the study goes on: the first item to annotate
        page.wait_for_selector(f"{LANE} h4:has-text('· item 1')")
        page.keyboard.press("y")
        page.keyboard.press("Enter")
        _see(page, "How clear was the task?")
        page.locator('[data-testid="stRadio"]').get_by_text("4", exact=True).click()
        _click(page, "Finish")
        _see(page, "CRWD-9")
        # the completion view, its countdown stopped (it would leave the page)
        _click(page, "Stay on this page")
        assert _axe(page, MAIN) == [], f"completion, {scheme}"


def test_axe_finds_no_violation_in_value_question_controls(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    value_project(store)
    for scheme, page in _each_scheme(sqlite_url, store, "annotate?project=rc"):
        # the spans question opened, a word selected, one span marked, a score set
        page.keyboard.press("y")
        page.wait_for_selector(f"{LANE} [data-target=errors] button.wb-word")
        page.keyboard.press("Space")
        page.keyboard.press("1")
        page.wait_for_selector(f"{LANE} .wb-spans li")
        page.click(f"{LANE} [data-fid='word:errors:2']")
        page.fill(f"{LANE} [data-fid='answer:quality']", "0.5")
        page.keyboard.press("Tab")
        page.wait_for_selector(f"{LANE} [data-testid=wbSaving]:has-text('all saved')")
        assert _axe(page) == [], scheme
        # each control named by its question; the selected word exposes its state
        assert page.get_attribute(f"{LANE} [data-fid='word:errors:2']", "aria-pressed") == "true"
        lane = page.locator(LANE)
        assert lane.get_by_role("slider", name="Overall quality, 0 to 1").count() == 1
        assert lane.get_by_role("textbox", name="The reply in one line").count() == 1
        assert lane.get_by_role("textbox", name="Anything else (optional)").count() == 1
        assert lane.get_by_role("group", name="Words to mark · Mark each error.").count()


def test_keyboard_only_practice_tab_space_enter_and_the_verdict_said(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 1}, guideline="Say yes when it is true.")
    store.upsert_items("p", [{"item_id": "i0", "fields": {"text": "Water is wet."}}])
    set_study(store, "p", {**STUDY, "gold_rate": 0})
    link = f"?study=p&token={TOKEN}&PROLIFIC_PID=KB&STUDY_ID=ST1&SESSION_ID=SE1"
    label = "Yes (1) or no (0)"
    with running_app(sqlite_url, {"WORKBENCH_AUTH_MODE": "crowd"}) as app, browser_page() as page:
        open_page(page, app, link)
        _see(page, "Do you take part?")
        _click(page, "I agree, start")
        _see(page, "Say yes when it is true.")
        _click(page, "I have read the guideline")
        page.wait_for_selector(f"{LANE} h4:has-text('practice item 1 of 2')")
        # the panel has the keyboard; Tab goes through its controls in reading order
        assert page.evaluate("() => document.activeElement.tagName") == "H4"
        seen = []
        for _ in range(4):
            page.keyboard.press("Tab")
            seen.append(_focused(page))
        assert seen == ["submit", "shortcuts", f"yes · {label}", f"no · {label}"]
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Space")  # "yes", picked; the focus stays on it
        page.wait_for_selector(f"{LANE} .wb-row button[aria-pressed=true]")
        assert _focused(page) == f"yes · {label}"
        page.keyboard.press("Tab")  # on "no": Enter checks the answer and does not pick it
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} [data-testid=wbPractice]")
        assert "Right. Fresh snow reflects all colours." in page.inner_text("#wb-live")
        assert _focused(page) == "continue"
        # keys other than Enter change nothing once the answer is checked
        page.keyboard.press("n")
        assert page.get_attribute(f"{LANE} [data-fid='opt:label:0']", "aria-pressed") == "true"
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('practice item 2 of 2')")
        assert page.evaluate("() => document.activeElement.tagName") == "H4"
        # shortcuts off: a letter does nothing; Tab and Space still answer
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert _focused(page) == "shortcuts"
        page.keyboard.press("Space")
        page.wait_for_selector(f"{LANE} button[data-fid=shortcuts][aria-pressed=false]")
        page.keyboard.press("n")
        assert page.locator(f"{LANE} .wb-row button[aria-pressed=true]").count() == 0
        page.keyboard.press("Enter")  # nothing chosen: refused in place, said aloud
        page.wait_for_selector(f"{LANE} .wb-missing")
        assert "Not checked. Still to answer" in page.inner_text("#wb-live")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert _focused(page) == f"no · {label}"
        page.keyboard.press("Space")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} [data-testid=wbPractice]")
        assert page.inner_text("#wb-live").startswith("Right.")
        page.keyboard.press("Enter")  # after the last one: the study goes on
        page.wait_for_selector(f"{LANE} h4:has-text('· item 1')")
    [worker] = crowd.participants(store, "p")
    assert [(a["id"], a["answers"], a["correct"]) for a in worker.training] == [
        ("t1", {"label": 1}, True),
        ("t2", {"label": 0}, True),
    ]
    assert (worker.stage, worker.qualified) == ("annotate", True)
