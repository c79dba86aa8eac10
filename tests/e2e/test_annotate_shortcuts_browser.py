"""Real browser: the Annotate shortcuts not covered by test_annotate_browser.py.

``j`` / ``k`` (next / previous fact), ``Right`` (next item, no submit), ``Shift+S`` (skip),
``Shift+F`` (flag / unflag) and the shortcut help table. Each key is checked by what it
stored (or drew), never by a fixed sleep.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import make_project
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

pytestmark = pytest.mark.e2e

PROJECT = "intent_match"
MAIN_TEXT = "() => document.querySelector('[data-testid=stMain]')?.innerText || ''"


def _wait_state(
    page,
    store: Store,
    item_id: str,
    check: Callable[[dict[str, Any]], bool],
    what: str,
    timeout_s: float = 20,
) -> dict[str, Any]:
    """Wait until ana's stored state on ``item_id`` passes ``check``, then for the rerun."""

    def state() -> dict[str, Any]:
        return store.item_state(PROJECT, item_id, "ana")

    found = wait_until(
        page,
        lambda: s if check(s := state()) else None,
        lambda: f"{what}: stored state of {item_id} is {state()}",
        timeout_s,
    )
    wait_for_streamlit(page)
    return found


def _wait_text(page, text: str) -> None:
    """Wait until the main area shows ``text`` (e.g. the highlight marker on a fact)."""
    page.wait_for_function(f"t => ({MAIN_TEXT})().includes(t)", arg=text, timeout=20_000)


def _wait_header(page, flagged: bool) -> None:
    """Wait until the item header shows (or no longer shows) the "flagged" badge."""
    page.wait_for_function(
        "want => ((document.querySelector('[data-testid=stMain] h4') || {}).innerText || '')"
        ".includes('flagged') === want",
        arg=flagged,
        timeout=20_000,
    )


def _gold(state: dict[str, Any]) -> list[str]:
    return state["labels"].get("gold_fact_labels", [])


def _open_annotate(page, app) -> None:
    open_page(page, app)
    sign_in(page, "ana", "ana-password")
    open_page(page, app, f"annotate?project={PROJECT}")
    page.wait_for_url("**item=1")
    _wait_text(page, "▸ 1. The user wants to book a table.")  # focus starts on gold fact 1


def _setup(sqlite_url: str) -> Store:
    store = Store(sqlite_url)
    make_project(store, PROJECT, k=1)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    return store


def test_target_keys_flag_and_help(sqlite_url: str) -> None:
    """j / k move the highlighted fact; Shift+F flags and unflags; the help table shows."""
    store = _setup(sqlite_url)
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        _open_annotate(page, app)

        press(page, "j")  # highlight the second gold fact; 0 labels it, not the first
        _wait_text(page, "▸ 2. The party is two people.")
        press(page, "0")
        _wait_state(page, store, "im1", lambda s: _gold(s)[:2] == ["?", "M"], "j then 0")
        assert _gold(store.item_state(PROJECT, "im1", "ana")) == list("?M???")

        # the answer moved the highlight on to fact 3; k goes back to fact 2 and relabels it
        _wait_text(page, "▸ 3. The cuisine is Italian.")
        press(page, "k")
        _wait_text(page, "▸ 2. The party is two people.")
        press(page, "1")
        _wait_state(page, store, "im1", lambda s: _gold(s)[:2] == ["?", "C"], "k then 1")
        _wait_text(page, "▸ 3. The cuisine is Italian.")
        press(page, "k")
        _wait_text(page, "▸ 2. The party is two people.")
        press(page, "k")
        _wait_text(page, "▸ 1. The user wants to book a table.")
        press(page, "0")
        _wait_state(page, store, "im1", lambda s: _gold(s)[0] == "M", "k, k then 0")
        assert _gold(store.item_state(PROJECT, "im1", "ana")) == list("MC???")

        assert store.item_state(PROJECT, "im1", "ana")["flagged"] is False
        press(page, "Shift+F")
        _wait_state(page, store, "im1", lambda s: s["flagged"] is True, "Shift+F flags")
        page.get_by_role("button", name="Unflag").wait_for()
        _wait_header(page, flagged=True)
        press(page, "Shift+F")
        _wait_state(page, store, "im1", lambda s: s["flagged"] is False, "Shift+F unflags")
        page.get_by_role("button", name=re.compile(r"^Flag")).wait_for()  # "Unflag" is gone
        _wait_header(page, flagged=False)
        assert store.item_state(PROJECT, "im1", "ana")["status"] == "draft"

        help_box = page.locator('[data-testid="stExpander"]').filter(has_text="Keyboard shortcuts")
        listing = help_box.locator("ul")  # a list: it wraps in the narrow side column
        assert not listing.is_visible()  # collapsed until asked for
        help_box.get_by_text("Keyboard shortcuts").click()
        listing.wait_for(state="visible")
        rows = [r.split(":", 1) for r in listing.locator("li").all_inner_texts()]
        shown = {r[0].strip(): r[1].strip() for r in rows}
        assert shown["j / k"] == "next / previous fact or question"
        assert shown["← / →"] == "previous / next item"
        assert shown["Shift+S"] == "skip the item"
        assert shown["Shift+F"] == "flag / unflag a problem"
    store.close()


def test_right_arrow_and_skip(sqlite_url: str) -> None:
    """Right goes to the next queued item without submitting; Shift+S skips the item."""
    store = _setup(sqlite_url)
    asg.assign(store, PROJECT, ["im1", "im2"], "ana")  # both queued, so Right has a next item
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        _open_annotate(page, app)
        press(page, "1")  # a draft answer on im1
        _wait_state(page, store, "im1", lambda s: _gold(s)[:1] == ["C"], "1 on im1")

        press(page, "ArrowRight")
        page.wait_for_url("**item=2")
        _wait_text(page, "▸ 1. An alarm is set.")
        im1 = store.item_state(PROJECT, "im1", "ana")
        assert im1["status"] == "draft"  # not submitted (nor skipped) by moving on
        assert _gold(im1) == list("C????")
        assert asg.queue(store, PROJECT, "ana") == ["im1", "im2"]

        press(page, "Shift+S")
        _wait_state(page, store, "im2", lambda s: s["status"] == "skipped", "Shift+S")
        page.wait_for_url("**item=1")  # left item 2 for the item still open in the queue
        _wait_text(page, "Skipped item 2; it goes to someone else.")
        assert asg.queue(store, PROJECT, "ana") == ["im1"]  # the claim on im2 is released
        assert store.item_state(PROJECT, "im1", "ana")["status"] == "draft"

        # im1 is now the last (and only) item in the queue and not submitted: Right stays
        press(page, "ArrowRight")
        _wait_text(page, "Submit or skip this item before taking a new one.")
        assert page.url.endswith("item=1")
        assert asg.queue(store, PROJECT, "ana") == ["im1"]  # no new claim either
    store.close()
