"""Real browser: the Progress page shows a seeded project's data-quality alarms, and one
click excludes the copying annotator with the alarm as the recorded reason."""

from __future__ import annotations

import re
import time

import pytest

from annotation_store import Store
from tests.e2e.harness import browser_page, open_page, running_app, screenshot
from tests.test_alarms_surfaces import PAIR, _project

pytestmark = pytest.mark.e2e


def test_exclude_from_an_alarm_in_the_browser(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _project(store)
    with running_app(sqlite_url) as app, browser_page(1440, 1000) as page:
        open_page(page, app, "progress?project=crowd")
        # one summary line per kind first; the full list is one click away
        page.get_by_text(re.compile(r"^All \d+ alarms$")).click(timeout=120_000)
        page.get_by_text(PAIR, exact=True).wait_for(timeout=120_000)
        screenshot(page, "progress-alarms", full_page=False)
        page.get_by_role("button", name="Exclude copy").click()
        deadline = time.monotonic() + 60
        while not store.exclusions("crowd") and time.monotonic() < deadline:
            time.sleep(0.2)
        # After the rerun the pair is no alarm any more (copy's labels are left out), and
        # the exclusion is listed with its source and reason.
        page.get_by_text(PAIR, exact=True).wait_for(state="detached", timeout=60_000)
        page.get_by_text("copy · alarm: ann and copy gave the same").wait_for()
    (rec,) = store.exclusions("crowd")
    assert (rec.annotator, rec.source, rec.reason) == ("copy", "alarm", PAIR)
    store.close()
