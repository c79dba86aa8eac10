"""Real browser: an admin builds a kind with the form on the Task kinds page (no TOML
typed), tries it in the live preview, saves it, and an item of a project on that kind is
annotated with the keyboard; the preview stored nothing, the keys stored the answers."""

from __future__ import annotations

import tomllib

import pytest

from accounts import users as accounts
from annotation_store import Store
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


def _type(page: object, key: str, text: str) -> None:
    """Type into the form widget with session key ``key`` and leave it (Tab commits)."""
    css = ".st-key-" + key.replace(":", "-")
    box = page.locator(f"{css} input, {css} textarea").first  # type: ignore[attr-defined]
    box.fill(text)
    box.press("Tab")
    wait_for_streamlit(page)


def _click(page: object, key: str) -> None:
    page.locator(f".st-key-{key.replace(':', '-')} button").click()  # type: ignore[attr-defined]
    wait_for_streamlit(page)


def _pick(page: object, key: str, option: str) -> None:
    """Choose ``option`` in the select box with session key ``key``."""
    page.locator(f".st-key-{key} input").click()  # type: ignore[attr-defined]
    page.keyboard.type(option)  # type: ignore[attr-defined]
    page.get_by_role("option", name=option, exact=True).click()  # type: ignore[attr-defined]
    wait_for_streamlit(page)


def test_build_a_kind_by_form_then_annotate_an_item(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    accounts.add_user(store, "boss", "admin", password="boss-password")
    store.create_project("seed", "binary")
    store.upsert_items("seed", [{"item_id": "s1", "fields": {"text": "Water boils at 90 C."}}])
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        ordinary_annotate_page(page)  # the page's own keys and views
        open_page(page, app)
        sign_in(page, "boss", "boss-password")
        open_page(page, app, "kinds")
        _type(page, "kd_name", "quick")
        _click(page, "kf::add_field")
        _type(page, "kf::f0::name", "text")
        _click(page, "kf::add_question")  # binary, the default type
        _type(page, "kf::q0::name", "true")
        _type(page, "kf::q0::prompt", "Is the claim true in 2 words?")
        _pick(page, "kf_new_type", "one label")
        _click(page, "kf::add_question")
        _type(page, "kf::q1::name", "why")
        _type(page, "kf::q1::labels", "made up\nout of date")
        page.get_by_text("Valid: 1 fields, 2 questions.").wait_for()
        # the live preview: the real view on the kind's sample item, then on a real one
        preview = page.locator(".st-key-kd_preview")
        preview.get_by_text("Is the claim true in 2 words?").wait_for()
        preview.get_by_role("button", name="[2] out of date").wait_for()
        _pick(page, "kd_preview_on", "seed")
        preview.get_by_text("Water boils at 90 C.").wait_for()
        preview.get_by_role("button", name="no").click()
        wait_for_streamlit(page)
        page.get_by_text("(1 so far); nothing is saved").wait_for()
        toml = page.locator(".st-key-kd_toml textarea").input_value()
        page.get_by_role("button", name="Save as new version").click()
        page.get_by_text("Saved decl:quick@1.").wait_for()
        assert store.item_state("seed", "s1", "boss")["labels"] == {}  # the preview wrote nothing
        record = store.kind_record("quick")
        assert record.source == toml
        assert [q["type"] for q in tomllib.loads(toml)["questions"]] == ["binary", "single"]

        store.create_project("claims", "decl:quick@1")
        store.upsert_items("claims", [{"item_id": "c1", "fields": {"text": "The moon is cheese."}}])
        open_page(page, app, "annotate?project=claims")
        page.get_by_text("The moon is cheese.").wait_for()
        press(page, "0")  # "no" to the binary question; the focus moves on
        press(page, "2")  # the second label
        wait_until(
            page,
            lambda: (
                store.item_state("claims", "c1", "boss")["labels"]
                == {"true": 0, "why": "out of date"}
            ),
            lambda: f"the keys stored {store.item_state('claims', 'c1', 'boss')['labels']}",
        )
        press(page, "Enter")
        wait_until(
            page,
            lambda: store.item_state("claims", "c1", "boss")["status"] == "submitted",
            "Enter did not submit",
        )
