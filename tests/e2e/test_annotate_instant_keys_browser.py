"""Real browser: the choice keys answered in the page (ui/annotation/instant_keys.py).

A key marks its choice selected in the same browser task that handles it (before any
server answer can arrive), and keys typed without waiting for the server, one per fact,
all reach the database on the right facts.
"""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from tests.annotate_fixtures import make_project
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    open_page,
    ordinary_annotate_page,
    running_app,
    sign_in,
    wait_for_streamlit,
    wait_until,
)
from ui.annotation.context import widget_token
from ui.annotation.instant_keys import button_class

pytestmark = pytest.mark.e2e

PROJECT = "intent_match"
# One JavaScript task: press "1" on the page, then look at the first fact's C button. No
# server message can be handled in between, so a selection seen here was made in the page.
PRESS_AND_LOOK = """cls => {
    window.dispatchEvent(new KeyboardEvent('keydown', {key: '1', bubbles: true}));
    const box = document.querySelector('.' + cls);
    return box !== null && box.classList.contains('wb-chosen');
}"""


def test_keys_select_in_the_page_and_fast_typing_loses_nothing(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    make_project(store, PROJECT, k=1)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    first_c = button_class(f"opt::{widget_token(PROJECT, 'im1')}::gold_fact_labels.0::C")
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, f"annotate?project={PROJECT}")
        page.wait_for_url("**item=1")
        page.wait_for_function("() => window.__wbKeys && window.__wbKeys.state")

        assert page.evaluate(PRESS_AND_LOOK, first_c) is True
        wait_until(
            page,
            lambda: store.item_state(PROJECT, "im1", "ana")["labels"].get("gold_fact_labels"),
            "the first key was never saved",
        )
        wait_for_streamlit(page)

        # the other four gold facts, the four predicted facts and the match question,
        # typed in a row without waiting for any answer
        for key in "0110" + "1001" + "1":
            page.keyboard.press(key)

        def saved() -> dict | None:
            labels = store.item_state(PROJECT, "im1", "ana")["labels"]
            return labels if labels.get("match") is not None else None

        labels = wait_until(page, saved, "the last key (match) was never saved", 60)
        wait_for_streamlit(page)
        labels = store.item_state(PROJECT, "im1", "ana")["labels"]
        assert labels["gold_fact_labels"] == list("CMCCM")
        assert labels["predicted_fact_labels"] == list("CMMC")
        assert labels["match"] == 1
