"""Real browser: no page asks a host other than the app for anything (issue 37 point 6),
not even with outside images in an item's Markdown, a kind's guideline, prompts and
labels, and a link field carrying a reference definition. Every request that leaves
127.0.0.1 is counted (and answered with an error, so nothing waits on DNS), and the
Content-Security-Policy blocks nothing of the app's own."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from annotation_store import Store
from tests.e2e.harness import browser_page, open_page, running_app
from workbench_api.kinds import save_kind

pytestmark = pytest.mark.e2e
EVIL = "http://evil.example"
KIND = f"""
title = "Outside images"
description = "A kind whose texts try to load images from another host."
guideline = "Read it all. ![guide]({EVIL}/guideline.png)"

[[fields]]
name = "body"
role = "markdown"

[[fields]]
name = "source"
role = "link"

[[questions]]
name = "fine"
type = "likert"
prompt = "Is it fine? ![prompt]({EVIL}/prompt.png)"
help = "Say how fine. ![help]({EVIL}/help.png)"
labels = ["no ![l]({EVIL}/label.png)", "somewhat", "yes"]
"""
ITEM = {
    "body": f"Text ![pixel]({EVIL}/pixel.png) and ![ref][r]\n\n[r]: {EVIL}/ref.png",
    "source": f"https://ok.example/a\n\n![b][s]\n\n[s]: {EVIL}/link.png",
}


def _setup(url: str) -> None:
    store = Store(url)
    save_kind(store, "outside", KIND)
    store.create_project("outside", "decl:outside", {"k": 1})
    store.upsert_items("outside", [{"item_id": "o1", "fields": ITEM}])
    store.close()


def test_no_page_asks_another_host_for_anything(sqlite_url: str) -> None:
    _setup(sqlite_url)
    outside: list[str] = []

    def guard(route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with running_app(sqlite_url) as app, browser_page() as page:
        page.context.route("**/*", guard)
        policies: list[str] = []
        refused: list[str] = []  # the policy must not break the app's own page
        page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
        page.on(
            "response",
            lambda r: policies.append(r.headers.get("content-security-policy", "")),
        )
        open_page(page, app)  # Home
        open_page(page, app, "annotate?project=outside&item=o1")
        page.get_by_text("Is it fine?").first.wait_for()
        # the app's own component scripts run under the policy (the active-time tracker)
        page.wait_for_function("() => window.__workbenchAway && window.__workbenchAway.installed")
        links = page.evaluate(
            """() => [...document.querySelectorAll('a')].map((a) => a.getAttribute('href'))
                .filter((h) => h && h.includes('ok.example'))"""
        )
        images = page.evaluate(
            "() => [...document.images].map((i) => i.src).filter((s) => s.includes('evil'))"
        )
        open_page(page, app, "data")
    assert outside == []
    assert refused == []
    assert images == []
    assert policies and all("img-src 'self' data:" in p for p in policies)
    # the link field is one link (the fast lane's panel shows it as text)
    assert len(links) == 1 and links[0].startswith("https://ok.example/a%0A%0A")
