"""Real browser: a declared kind with free text, scores on 0-1 and on 1-10, spans, a label
set, an optional question and a conditional one, labelled through the annotation client
(issue #46). What was entered, by keys and by clicks, is what the database holds."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from tests.e2e.harness import LOCAL_AUTH, browser_page, open_page, running_app, sign_in
from tests.support.value_kind import value_project

pytestmark = pytest.mark.e2e

LANE = "#wb-lane"


def _focused(page) -> str:
    return page.evaluate("() => document.activeElement.getAttribute('data-fid') || ''")


def _saved(page) -> None:
    page.wait_for_function("() => window.__wbLane && !window.__wbLane.queue.length")


@contextmanager
def _labelling(sqlite_url: str) -> Iterator[tuple[Store, Any]]:
    """ana, an annotator, signed in on the value project's Annotate page at its first item."""
    store = Store(sqlite_url)
    value_project(store)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, "annotate?project=rc")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
        yield store, page


def test_value_and_conditional_questions_store_what_was_entered(sqlite_url: str) -> None:
    with _labelling(sqlite_url) as (store, page):
        first = asg.display_order(store, "rc", "ana")[0]
        text = store.item("rc", first).fields["text"]
        # the spans question waits for a "yes"; its text is shown in it, not twice
        assert page.locator(f"{LANE} [data-target=errors]").count() == 0
        page.keyboard.press("y")
        page.wait_for_selector(f"{LANE} [data-target=errors] button.wb-word")
        page.wait_for_function(
            "() => (document.activeElement.getAttribute('data-fid') || '')"
            ".startsWith('word:errors:')"
        )
        assert page.locator(f"{LANE} .wb-panel:has-text('{text}')").count() == 0
        # the first two words, marked "tone" by Space, Tab, Space and the label's key
        page.keyboard.press("Space")
        page.keyboard.press("Tab")
        page.keyboard.press("Space")
        assert page.locator(f"{LANE} button.wb-word[aria-pressed=true]").count() == 2
        page.keyboard.press("2")
        page.wait_for_selector(f"{LANE} .wb-spans li")
        # the third word by clicks: the word, then its label
        page.click(f"{LANE} [data-fid='word:errors:2']")
        page.click(f"{LANE} [data-fid='mark:errors:0']")
        page.wait_for_selector(f"{LANE} .wb-spans li:nth-child(2)")
        # scores: a typed number, a slider moved by arrow keys from its lowest value
        page.fill(f"{LANE} [data-fid='answer:quality']", "0.75")
        page.focus(f"{LANE} [data-fid='slider:stars']")
        for _ in range(6):
            page.keyboard.press("ArrowRight")
        assert page.input_value(f"{LANE} [data-fid='answer:stars']") == "7"
        # a label set: two labels by their keys on the question in focus, one removed
        page.click(f"{LANE} [data-target=topics] button[data-opt='0']")
        page.click(f"{LANE} [data-target=topics] button[data-opt='2']")
        page.click(f"{LANE} [data-target=topics] button[data-opt='0']")
        page.click(f"{LANE} [data-target=topics] button[data-opt='1']")
        chosen = page.locator(f"{LANE} [data-target=topics] button[aria-pressed=true]")
        assert chosen.count() == 2
        # free text: Shift+Enter a new line, Enter submits (the optional comment left empty)
        page.click(f"{LANE} [data-fid='answer:summary']")
        page.keyboard.type("A cat")
        page.keyboard.press("Shift+Enter")
        page.keyboard.type("on a sofa. ")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        _saved(page)
        state = store.item_state("rc", first, "ana")
        assert state["status"] == "submitted"
        assert state["labels"] == {
            "has_errors": 1,
            "errors": [
                {"start": 0, "end": 7, "label": "tone"},
                {"start": 8, "end": 13, "label": "fact"},
            ],
            "quality": 0.75,
            "stars": 7.0,
            "topics": ["travel", "health"],
            "summary": "A cat\non a sofa.",
        }
        assert text[0:7] == "The cat" and text[8:13] == "sleep"

        # item 2: "no" keeps the spans question away; a refused submit names what is left
        second = asg.display_order(store, "rc", "ana")[1]
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} .wb-missing")
        assert "Still to answer" in page.inner_text("#wb-live")
        assert page.locator(f"{LANE} [data-target=errors]").count() == 0
        page.focus(f"{LANE} [data-fid='slider:quality']")
        for _ in range(30):
            page.keyboard.press("ArrowRight")
        page.fill(f"{LANE} [data-fid='answer:stars']", "10")
        page.click(f"{LANE} [data-target=topics] button[data-opt='0']")
        page.fill(f"{LANE} [data-fid='answer:comment']", "Fine.")
        page.fill(f"{LANE} [data-fid='answer:summary']", "Hourly trains.")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        _saved(page)
        state = store.item_state("rc", second, "ana")
        assert state["status"] == "submitted"
        assert state["labels"] == {
            "has_errors": 0,
            "quality": 0.3,
            "stars": 10.0,
            "topics": ["billing"],
            "summary": "Hourly trains.",
            "comment": "Fine.",
        }


def test_a_text_answer_emptied_in_the_client_is_cleared_on_the_server(sqlite_url: str) -> None:
    with _labelling(sqlite_url) as (store, page):
        first = asg.display_order(store, "rc", "ana")[0]
        box = f"{LANE} [data-fid='answer:comment']"
        page.click(box)
        page.keyboard.type("Worth a second look.")
        page.keyboard.press("Tab")  # the box left: its answer is posted
        _saved(page)
        assert store.item_state("rc", first, "ana")["labels"]["comment"] == "Worth a second look."
        page.click(box)
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.press("Tab")
        _saved(page)
        assert "comment" not in store.item_state("rc", first, "ana")["labels"]
        assert page.locator(f"{LANE} [data-testid=wbSaveError]").count() == 0


def _key_of(page, target: str, index: int) -> str:
    return page.evaluate(
        "([t, i]) => window.__wbLane.cur.item.targets.find((x) => x.key === t).choices[i].keys[0]",
        [target, index],
    )


def test_a_key_after_a_box_answers_the_question_the_keyboard_is_on(sqlite_url: str) -> None:
    """Keys typed in a box are its text; once the keyboard has left the box (Tab to the
    next question, or out of every question) a choice key answers the question on screen,
    not the box's. A text saved, emptied and submitted at once is cleared, not kept."""
    with _labelling(sqlite_url) as (store, page):
        first, second = asg.display_order(store, "rc", "ana")[:2]
        page.keyboard.press("n")
        topics = f"{LANE} [data-target=topics]"
        # a number typed, the box left for nothing: the next key is the next question's
        page.click(f"{LANE} [data-fid='answer:stars']")
        page.keyboard.type("7")
        page.evaluate("() => document.activeElement.blur()")
        assert page.get_attribute(topics, "aria-current") == "true"
        page.keyboard.press(_key_of(page, "topics", 0))
        page.wait_for_selector(f"{topics} button[data-opt='0'][aria-pressed=true]")
        # back in the box, then Tab to the label set's first option: its keys answer it
        page.click(f"{LANE} [data-fid='answer:stars']")
        assert page.get_attribute(f"{LANE} [data-target=stars]", "aria-current") == "true"
        page.keyboard.press("Tab")
        assert _focused(page) == "opt:topics:0"
        assert page.get_attribute(topics, "aria-current") == "true"
        page.keyboard.press(_key_of(page, "topics", 2))
        page.wait_for_selector(f"{topics} button[data-opt='2'][aria-pressed=true]")
        # a letter in a number box is no number: the next-question key moves on from it
        page.click(f"{LANE} [data-fid='answer:quality']")
        page.keyboard.type("0.5")
        page.keyboard.press(page.evaluate("() => window.__wbLane.cfg.nextKey"))
        assert page.get_attribute(f"{LANE} [data-target=stars]", "aria-current") == "true"
        assert page.input_value(f"{LANE} [data-fid='answer:quality']") == "0.5"
        page.fill(f"{LANE} [data-fid='answer:summary']", "Short.")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        _saved(page)
        labels = store.item_state("rc", first, "ana")["labels"]
        assert labels["topics"] == ["billing", "health"]
        assert labels["stars"] == 7.0 and labels["quality"] == 0.5

        # item 2: a comment saved (the box left), then emptied and submitted from its box
        page.keyboard.press("n")
        page.fill(f"{LANE} [data-fid='answer:quality']", "0.2")
        page.fill(f"{LANE} [data-fid='answer:stars']", "3")
        page.click(f"{topics} button[data-opt='1']")
        page.fill(f"{LANE} [data-fid='answer:summary']", "Trains.")
        box = f"{LANE} [data-fid='answer:comment']"
        page.click(box)
        page.keyboard.type("Worth a look.")
        page.keyboard.press("Tab")
        _saved(page)
        assert store.item_state("rc", second, "ana")["labels"]["comment"] == "Worth a look."
        page.click(box)
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        _saved(page)
        state = store.item_state("rc", second, "ana")
        assert state["status"] == "submitted"
        assert "comment" not in state["labels"]
