"""Real browser: three annotators answer a declared pairwise kind with the keyboard only
(A / B / T for the choice, a digit for a follow-up label, Enter to submit); what each
key stored is checked in the database, and the shown order is the one stored."""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from reports.data import agreement_document
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    open_page,
    press,
    running_app,
    sign_in,
    wait_until,
)
from tests.support.kind_examples import example_project

pytestmark = pytest.mark.e2e
KEYS = {"ann3": "t", "ann1": "a", "ann2": "b"}


def _setup(sqlite_url: str) -> Store:
    store = Store(sqlite_url)
    example_project(store, "pairwise_preference", "pref", {"k": 3})
    for who in KEYS:
        accounts.add_user(store, who, "annotator", password=f"{who}-password")
    return store


def test_three_annotators_answer_a_pairwise_kind_by_keyboard(sqlite_url: str) -> None:
    store = _setup(sqlite_url)
    with running_app(sqlite_url, LOCAL_AUTH) as app:
        for who, key in KEYS.items():
            with browser_page() as page:
                open_page(page, app)
                sign_in(page, who, f"{who}-password")
                open_page(page, app, "annotate?project=pref")
                page.wait_for_url("**item=1")  # their own number for item p1
                page.get_by_role("button", name="Tie").wait_for()  # the choices are drawn
                press(page, key)
                state = wait_until(
                    page,
                    lambda w=who: (
                        (s := store.item_state("pref", "p1", w))["labels"].get("preference") and s
                    ),
                    f"{who}: the {key!r} key stored no preference",
                )
                pref = state["labels"]["preference"]
                expected = "tie" if key == "t" else pref["shown"][0 if key == "a" else 1]
                assert pref["choice"] == expected
                if key != "t":  # the follow-up question is asked; its first label is 1
                    # the follow-up's title (the live region announces it too)
                    page.locator(".wb-title", has_text="What made the difference?").wait_for()
                    press(page, "1")
                    wait_until(
                        page,
                        lambda w=who: (
                            store.item_state("pref", "p1", w)["labels"].get("reasons")
                            == ["correctness"]
                        ),
                        f"{who}: 1 did not toggle the first reason",
                    )
                press(page, "Enter")
                wait_until(
                    page,
                    lambda w=who: store.item_state("pref", "p1", w)["status"] == "submitted",
                    f"{who}: Enter did not submit",
                )
    doc = agreement_document(store, "pref", n_resamples=0).to_dict()["fields"]["preference"]
    choices = [store.item_state("pref", "p1", w)["labels"]["preference"]["choice"] for w in KEYS]
    same = sum(choices[i] == choices[j] for i in range(3) for j in range(i + 1, 3))
    assert doc["pairwise_agree_with_ties"] == pytest.approx(same / 3)
