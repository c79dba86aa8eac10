"""Real browser: 8 annotators (8 sessions) label at once on one app server; every click is
stored, as submitted, and no item gets more than k annotators."""

from __future__ import annotations

import pytest

from annotation_store import Store
from tests.e2e.crowd import PROJECT, label_rounds, make_crowd, open_sessions
from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, LOCAL_AUTH, require_chromium, running_app

pytestmark = pytest.mark.e2e


def test_eight_sessions_at_once_every_click_is_stored(sqlite_url: str) -> None:
    require_chromium()
    from playwright.sync_api import sync_playwright

    store = Store(sqlite_url)
    names = make_crowd(store, people=8, items=8)
    env = {**LOCAL_AUTH, "WORKBENCH_JOBS_IN_APP": "0"}
    with running_app(sqlite_url, env) as app, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            pages = open_sessions(browser, app, names)
            clicked, _ = label_rounds(store, pages, names, rounds=2)
        finally:
            browser.close()
    frame = store.annotations_frame(PROJECT, ("submitted",))
    stored = sorted(zip(frame["item_id"], frame["annotator"], strict=True))
    assert stored == sorted(clicked) and len(clicked) == 16  # every click, once
    assert set(frame["value"]) == {1}
    assert frame.groupby("item_id")["annotator"].nunique().max() <= 3  # k
    store.close()
