"""Real browser: the Annotate page's fast lane (ui/annotation/fast_lane_view.py, #30).

After the first Enter the next items are drawn by the page's script and their labels
posted in the background; every label reaches the database, in order, and a failed post
is shown and retried.
"""

from __future__ import annotations

import pytest

from annotation_store import Store
from annotation_store import assignments as asg
from annotation_store.accounts import users as accounts
from annotation_store.crowd import study_quality as cq
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    open_page,
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
    open_page(page, app)
    sign_in(page, "ana", "ana-password")
    open_page(page, app, "annotate?project=p")
    page.wait_for_url("**item=1")
    page.wait_for_function(LANE_READY)


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
