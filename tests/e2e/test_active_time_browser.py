"""Real browser: time away from the page (window in the background) is not active time.

Each test runs on the ordinary page (its own time counter, ui/active_time.py) and in the
fast lane's panel (which counts the time away itself, ui/annotation/fast_lane_view.py)."""

from __future__ import annotations

import pytest

from annotation_store import Store
from crowd import study_quality as cq
from tests.e2e.harness import (
    browser_page,
    open_page,
    ordinary_annotate_page,
    running_app,
    wait_for_streamlit,
    wait_until,
)

pytestmark = pytest.mark.e2e
AWAY_MS = 3000


WHERE = pytest.mark.parametrize("where", ["page", "panel"])


def _open(page, app, where: str) -> None:
    """Annotate on the only item, on the ordinary page or in the fast lane's panel."""
    if where == "page":
        ordinary_annotate_page(page)
    open_page(page, app, "annotate?project=p")
    wait_until(page, lambda: page.get_by_role("button", name="Submit").count(), "no item")
    if where == "panel":
        page.wait_for_selector("#wb-lane h4")


def _label_and_submit(page, store: Store) -> None:
    """Answer the only item with key 1, submit it, and wait for its active time."""
    wait_for_streamlit(page)
    page.keyboard.press("1")
    wait_until(page, lambda: store.item_state("p", "i0", "admin")["labels"], "not saved")
    wait_for_streamlit(page)
    page.keyboard.press("Enter")
    wait_until(page, lambda: len(cq.active_times(store, "p")), "no active time stored")


@WHERE
def test_time_in_the_background_is_left_out_of_active_time(sqlite_url: str, where: str) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items("p", [{"item_id": "i0", "fields": {"text": "Statement"}}])
    with running_app(sqlite_url) as app, browser_page() as page:
        _open(page, app, where)
        page.evaluate("() => window.dispatchEvent(new Event('blur'))")
        page.wait_for_timeout(AWAY_MS)
        page.evaluate("() => window.dispatchEvent(new Event('focus'))")
        _label_and_submit(page, store)
    progress = store.progress_frame("p").iloc[0]
    active = cq.active_times(store, "p")["active_seconds"].iloc[0]
    assert 0 < active <= progress["seconds_spent"] - AWAY_MS / 1000 + 0.2


@WHERE
def test_a_pause_without_input_beyond_the_studys_idle_threshold_is_left_out(
    sqlite_url: str, where: str
) -> None:
    from studies.flow_settings import set_study

    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 1})
    store.upsert_items("p", [{"item_id": "i0", "fields": {"text": "Statement"}}])
    set_study(store, "p", {"idle_seconds": 5})
    with running_app(sqlite_url) as app, browser_page() as page:
        _open(page, app, where)
        page.mouse.move(10, 10)
        page.wait_for_timeout(8_000)  # no input: 3 s beyond the 5 s threshold
        page.mouse.move(20, 20)
        _label_and_submit(page, store)
    progress = store.progress_frame("p").iloc[0]
    active = cq.active_times(store, "p")["active_seconds"].iloc[0]
    assert 0 < active <= progress["seconds_spent"] - 2.5
