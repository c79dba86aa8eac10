"""Several annotators labelling at once in one browser (one context, i.e. session, each)
against one app server: used by the many-sessions browser test and its bench."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs, urlparse

from accounts import users as accounts
from annotation_store import Store
from studies.assignments import display_order
from tests.e2e.harness import (
    AppServer,
    open_page,
    ordinary_annotate_page,
    sign_in,
    wait_for_streamlit,
    wait_until,
)

PROJECT = "crowd"


def make_crowd(store: Store, people: int, items: int, k: int = 3) -> list[str]:
    """A binary project and ``people`` annotator accounts; returns their names."""
    store.create_project(PROJECT, "binary", {"k": k})
    store.upsert_items(
        PROJECT,
        [{"item_id": f"c{i:03d}", "fields": {"text": f"Sentence {i}."}} for i in range(items)],
    )
    names = [f"rater{j}" for j in range(people)]
    for name in names:
        accounts.add_user(store, name, "annotator", password=f"{name}-password")
    return names


def _item(page: Any) -> str | None:
    return (parse_qs(urlparse(page.url).query).get("item") or [None])[0]


def open_sessions(browser: Any, app: AppServer, names: list[str]) -> list[Any]:
    """One signed-in page per name, each on the Annotate page with its first item."""
    pages = []
    for name in names:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(120_000)
        ordinary_annotate_page(page)  # the first item on the page, the next ones in the lane
        open_page(page, app)
        sign_in(page, name, f"{name}-password")
        open_page(page, app, f"annotate?project={PROJECT}")
        page.wait_for_url("**item=**")
        pages.append(page)
    return pages


def label_rounds(
    store: Store, pages: list[Any], names: list[str], rounds: int
) -> tuple[list[tuple[str, str]], list[float]]:
    """Each round, every session answers its item with ``1`` and submits with Enter, the
    sessions interleaved. Returns the (item, annotator) pairs clicked and the seconds from
    each submit to the next item drawn."""
    clicked: list[tuple[str, str]] = []
    waits: list[float] = []
    for _ in range(rounds):
        # annotators' URLs carry their own display numbers, not item ids
        shown = [_item(p) for p in pages]
        current = [
            display_order(store, PROJECT, name)[int(_item(p) or 0) - 1]
            for p, name in zip(pages, names, strict=True)
        ]
        for page in pages:
            page.keyboard.press("1")
        for page, name, item in zip(pages, names, current, strict=True):
            wait_until(
                page,
                lambda item=item, name=name: store.item_state(PROJECT, item, name)["labels"],
                f"{name}'s label on {item} was never stored",
                timeout_s=120,
            )
            wait_for_streamlit(page, 120_000)
            clicked.append((item, name))
        starts = []
        for page in pages:
            starts.append(time.perf_counter())
            page.keyboard.press("Enter")
        for page, start, number in zip(pages, starts, shown, strict=True):
            wait_until(
                page,
                lambda page=page, number=number: _item(page) not in (None, number),
                "the next item never came",
                timeout_s=120,
            )
            wait_for_streamlit(page, 120_000)
            waits.append(time.perf_counter() - start)
    return clicked, waits
