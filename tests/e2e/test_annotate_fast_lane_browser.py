"""Real browser: the Annotate page's fast lane (ui/annotation/fast_lane_view.py, #30).

The panel opens on the page's first item: its keys are answered in the browser (no
rerun), Enter submits, Esc goes to the ordinary page on the item in view and the panel
stays closed there; a reload reopens it with the saved choices. From the ordinary page
(the panel kept closed), Enter hands over to the panel; every label reaches the
database, in order, and a failed post is shown and retried.
"""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from crowd import study_quality as cq
from studies import assignments as asg
from tests.annotate_fixtures import ITEMS
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    open_page,
    ordinary_annotate_page,
    press,
    running_app,
    sign_in,
    wait_for_streamlit,
    wait_until,
)
from ui.annotation.fast_routes import LABEL_ROUTE

pytestmark = pytest.mark.e2e

LANE = "#wb-lane"
LANE_READY = (
    "() => window.__wbKeys && window.__wbKeys.state && window.__wbLane && window.__wbLane.next"
)


def _project(store: Store, n: int) -> None:
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items(
        "p",
        [
            {
                "item_id": f"q{i}:{'tampered' if i % 2 else 'clean'}",
                "fields": {"text": f"Text {i}."},
            }
            for i in range(n)
        ],
    )
    accounts.add_user(store, "ana", "annotator", password="ana-password")


def _open(page, app) -> None:
    """Annotate on the ordinary page (the panel kept closed on the first item)."""
    ordinary_annotate_page(page)
    open_page(page, app)
    sign_in(page, "ana", "ana-password")
    open_page(page, app, "annotate?project=p")
    page.wait_for_url("**item=1")
    page.wait_for_function(LANE_READY)


# Counts the runs of the page's script from now on (the app root's state attribute).
COUNT_RUNS = """() => { window.__runs = 0;
    const app = document.querySelector('[data-testid=stApp]');
    new MutationObserver(() => { if (app.getAttribute('data-test-script-state') === 'running')
        window.__runs += 1; }).observe(app, {attributes: true}); }"""
#: Every post of the panel is through.
ALL_SAVED = "() => window.__wbLane && !window.__wbLane.queue.length"
#: A choice button of the ordinary page drawn as chosen (saved).
PAGE_CHOSEN = '[data-testid=stMain] [class*="st-key-opt"] button[data-testid=stBaseButton-primary]'


def _labels(store: Store, item_id: str) -> dict:
    return store.item_state("p", item_id, "ana")["labels"]


def _submitted(store: Store) -> list[tuple[str, int]]:
    """(item id, label) of ana's submitted items, in her order of work."""
    out = []
    for item_id in asg.display_order(store, "p", "ana"):
        state = store.item_state("p", item_id, "ana")
        if state["status"] == "submitted":
            out.append((item_id, state["labels"]["label"]))
    return out


def test_items_labelled_in_the_fast_lane_are_all_saved_in_order(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _project(store, 4)
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        _open(page, app)
        page.keyboard.press("1")  # the first item on the ordinary page
        wait_until(page, lambda: store.item_state("p", "q0:clean", "ana")["labels"], "no save")
        wait_for_streamlit(page)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        assert "tampered" not in page.inner_text(LANE)  # blind: display numbers only
        assert "Text 1." in page.inner_text(LANE)
        for key, number in (("0", 3), ("1", 4)):
            page.keyboard.press(key)
            page.wait_for_selector(f"{LANE} button.wb-on")
            page.keyboard.press("Enter")
            page.wait_for_selector(f"{LANE} h4:has-text('item {number}')")
        page.keyboard.press("Enter")  # item 4 not answered: refused, marked in place
        page.wait_for_selector(f"{LANE} .wb-missing")
        page.keyboard.press("0")
        page.keyboard.press("Enter")  # the end of the queue: the ordinary page again
        page.wait_for_selector("text=Nothing left for you", timeout=60_000)
        assert "item=" not in page.url
        expected = [("q0:clean", 1), ("q1:tampered", 0), ("q2:clean", 1), ("q3:tampered", 0)]
        assert _submitted(store) == expected
        page.reload()
        wait_for_streamlit(page)
        page.wait_for_selector("text=Nothing left for you")
        assert _submitted(store) == expected
        # time on task is stored for every item, the fast lane's ones too
        assert sorted(cq.active_times(store, "p")["item_id"]) == [i for i, _ in expected]


def test_a_failed_save_is_shown_and_retried(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _project(store, 3)
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        _open(page, app)
        failures = []

        def fail_once(route) -> None:
            if not failures:
                failures.append(route.request.post_data)
                route.fulfill(status=503, body="down for a moment")
            else:
                route.continue_()

        page.route(f"**{LABEL_ROUTE}", fail_once)
        page.keyboard.press("0")
        wait_until(page, lambda: store.item_state("p", "q0:clean", "ana")["labels"], "no save")
        wait_for_streamlit(page)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        error = page.wait_for_selector("[data-testid=wbSaveError]")
        assert "Could not save item 1" in error.inner_text()
        assert "Retrying" in error.inner_text()
        # the retry saves it and the message goes away
        page.wait_for_selector("[data-testid=wbSaveError]", state="detached")
        assert len(failures) == 1
        assert _submitted(store) == [("q0:clean", 0)]
        page.keyboard.press("1")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        wait_until(page, lambda: len(_submitted(store)) == 2, "the second item was never saved")
        assert _submitted(store) == [("q0:clean", 0), ("q1:tampered", 1)]
        page.keyboard.press("Escape")  # back to the ordinary page, on the item in view
        page.wait_for_url("**item=3")
        wait_for_streamlit(page)
        assert page.query_selector(LANE) is None
        assert "item 3" in page.inner_text("[data-testid=stMain] h4")


def test_the_first_item_is_labelled_in_the_panel_and_esc_keeps_the_page(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _project(store, 3)
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, "annotate?project=p")
        page.wait_for_url("**item=1")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")  # the page's own item
        assert "Text 0." in page.inner_text(LANE)
        # blind: display numbers, in the panel, the URL and the page's script alike
        assert "clean" not in page.inner_text(LANE) + page.url + page.content()
        # the script's config and its item are in the HTML (an attribute: no inline code)
        assert "data-config=" in page.content() and "&quot;targets&quot;" in page.content()
        page.evaluate(COUNT_RUNS)
        page.keyboard.press("1")
        chosen = page.wait_for_selector(f"{LANE} button.wb-on")
        assert chosen.get_attribute("aria-pressed") == "true"
        assert chosen.get_attribute("aria-label").startswith("yes · ")
        wait_until(
            page,
            lambda: _labels(store, "q0:clean") == {"label": 1},
            lambda: f"the panel's key on item 1 saved {_labels(store, 'q0:clean')}",
        )
        page.wait_for_timeout(500)
        # the panel drew the choice: no run of the page, whose button is not chosen
        assert page.evaluate("() => window.__runs") == 0
        assert page.locator(PAGE_CHOSEN).count() == 0
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        page.keyboard.press("0")
        page.wait_for_selector(f"{LANE} button.wb-on")
        wait_until(
            page,
            lambda: _labels(store, "q1:tampered") == {"label": 0},
            lambda: f"the panel's key on item 2 saved {_labels(store, 'q1:tampered')}",
        )
        page.wait_for_function(ALL_SAVED)
        assert _submitted(store) == [("q0:clean", 1)]
        assert page.evaluate("() => window.__runs") == 0

        # Esc: the ordinary page (a new load) on item 2, with its saved choice
        page.evaluate("() => { window.__sameLoad = true; }")
        page.keyboard.press("Escape")
        page.wait_for_function("() => !window.__sameLoad")
        wait_for_streamlit(page)
        page.wait_for_selector(PAGE_CHOSEN)
        assert page.url.endswith("item=2")
        assert "item 2" in page.inner_text("[data-testid=stMain] h4")
        assert page.query_selector(LANE) is None
        press(page, "1")  # the page's own key: a run of the page, and still no panel
        wait_until(
            page,
            lambda: _labels(store, "q1:tampered") == {"label": 1},
            lambda: f"the page's key after Esc saved {_labels(store, 'q1:tampered')}",
        )
        wait_for_streamlit(page)
        page.wait_for_timeout(1000)
        assert page.query_selector(LANE) is None

        # a reload on the item: the panel again, with the saved choice marked
        page.reload()
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        chosen = page.locator(f"{LANE} button.wb-on")
        assert chosen.count() == 1 and chosen.get_attribute("aria-label").startswith("yes · ")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        page.wait_for_function(ALL_SAVED)
        assert _submitted(store) == [("q0:clean", 1), ("q1:tampered", 1)]

        # Esc on the page's own item with nothing sent from the panel: it just closes
        page.reload()
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        wait_for_streamlit(page)  # the page under the panel drawn (a key in between is lost)
        page.evaluate("() => { window.__sameLoad = true; }")
        page.keyboard.press("Escape")
        page.wait_for_selector(LANE, state="detached")
        assert page.evaluate("() => window.__sameLoad") is True
        assert page.url.endswith("item=3")
        press(page, "0")
        wait_until(
            page,
            lambda: _labels(store, "q2:clean") == {"label": 0},
            lambda: f"the page's key after the panel closed saved {_labels(store, 'q2:clean')}",
        )
        wait_for_streamlit(page)
        page.keyboard.press("Enter")  # the last item: the page's own submit
        expected = [("q0:clean", 1), ("q1:tampered", 1), ("q2:clean", 0)]
        wait_until(page, lambda: _submitted(store) == expected, lambda: str(_submitted(store)))
        assert page.query_selector(LANE) is None

        # ← in the panel: the ordinary page on the item before, where the panel stays closed
        page.reload()
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        assert "submitted before" in page.inner_text(f"{LANE} .wb-bar")
        page.keyboard.press("ArrowLeft")
        page.wait_for_url("**item=2")
        wait_for_streamlit(page)
        page.wait_for_selector("[data-testid=stMain] h4:has-text('item 2')")
        page.wait_for_timeout(1000)
        assert page.query_selector(LANE) is None


def test_intent_match_panel_shows_live_recall_precision_f1(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("im", "intent_match", {"k": 1})
    store.upsert_items("im", [ITEMS["intent_match"][1]])  # two gold facts, one predicted
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    scores = f"{LANE} [data-testid=wbScores]"
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, "annotate?project=im")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
        assert page.inner_text(scores) == "Recall — · Precision — · F1 —"
        # each key's save comes back with the figures of what is saved so far
        for key, shown in (
            ("1", "Recall 1.00 · Precision — · F1 —"),  # gold fact 1 implied
            ("0", "Recall 0.50 · Precision — · F1 —"),  # gold fact 2 missing
            ("1", "Recall 0.50 · Precision 1.00 · F1 0.67"),  # the predicted fact implied
        ):
            page.keyboard.press(key)
            page.wait_for_function(
                "([sel, text]) => { const el = document.querySelector(sel);"
                " return el && el.innerText === text; }",
                arg=[scores, shown],
            )
        labels = store.item_state("im", "im2", "ana")["labels"]
        assert labels["gold_fact_labels"] == ["C", "M"] and labels["predicted_fact_labels"] == ["C"]


def test_flag_note_skip_and_the_guideline_in_the_panel(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _project(store, 3)
    store.update_guideline("p", "Say yes when the text is true.")
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page(width=390, height=844) as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, "annotate?project=p")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
        page.wait_for_function("() => window.__wbLane && window.__wbLane.after !== undefined")
        page.click(f"{LANE} summary")  # the guideline, folded until opened
        assert "Say yes when the text is true." in page.inner_text(f"{LANE} details")
        page.click(f"{LANE} button[data-fid=flag]")
        page.fill(f"{LANE} textarea", "The text stops mid-sentence.")
        page.keyboard.press("Tab")  # the note is saved when it loses focus
        page.wait_for_function(ALL_SAVED)
        state = store.item_state("p", "q0:clean", "ana")
        assert state["flagged"] and state["note"] == "The text stops mid-sentence."
        assert page.get_attribute(f"{LANE} button[data-fid=flag]", "aria-pressed") == "true"
        page.click(f"{LANE} button[data-fid=skip]")  # given back: the next item at once
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        page.wait_for_function(ALL_SAVED)
        assert store.item_state("p", "q0:clean", "ana")["status"] == "skipped"
        assert page.input_value(f"{LANE} textarea") == ""  # item 2's own (empty) note
