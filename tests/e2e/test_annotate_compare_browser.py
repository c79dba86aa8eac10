"""Real browser: comparisons in the annotation client (issue #46).

A pairwise study with strengths (a scale keyed 1-5, the tie also T) typed ahead at human
speed, the next key 0.3-0.6 s after the one before, Enter included: every stored answer
is the scale point pressed, with its side, strength and the order shown. A ranking study
done with the keyboard only: letters best first, "=" for level, and an output moved by
its move button reached with Tab and pressed with Space; by clicks, each button named
with its output and place, and axe-core finding no violation in light and dark.
"""

from __future__ import annotations

import random

import pytest

from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from tests.e2e.harness import LOCAL_AUTH, browser_page, open_page, running_app, sign_in
from tests.e2e.test_annotate_client_a11y_browser import _axe, _each_scheme
from tests.support.compare_kind import ranking_project, strengths_project

pytestmark = pytest.mark.e2e

LANE = "#wb-lane"
#: The scale's keys, left to right, and what each stores: side (0: Response A), strength.
SCALE = {"1": (0, "much"), "2": (0, "slightly"), "3": (None, None), "t": (None, None)}
SCALE |= {"4": (1, "slightly"), "5": (1, "much")}


def _signed_in(page, app, project: str) -> None:
    open_page(page, app)
    sign_in(page, "ana", "ana-password")
    open_page(page, app, f"annotate?project={project}")
    page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
    # the second item is fetched while the first is on screen, as for a person reading it
    page.wait_for_function("() => window.__wbLane && window.__wbLane.after !== undefined")


def _labels(store: Store, project: str, n: int) -> list[dict]:
    order = asg.display_order(store, project, "ana")
    assert len(order) == n
    states = [store.item_state(project, i, "ana") for i in order]
    assert [s["status"] for s in states] == ["submitted"] * n
    return [s["labels"] for s in states]


def test_pairwise_strengths_typed_ahead_are_stored_as_pressed(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    n = 22  # a key and Enter each: 44 keys
    strengths_project(store, "ps", n)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    rng = random.Random(46)
    keys = [rng.choice(list(SCALE)) for _ in range(n)]
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        _signed_in(page, app, "ps")
        hints = page.locator(f"{LANE} .wb-row kbd").all_inner_texts()
        assert hints == ["1", "2", "3", "4", "5"]
        titles = page.locator(f"{LANE} .wb-panel h5").all_inner_texts()
        assert titles == ["Request", "Response A", "Response B"]
        for key in keys:
            for k in (key, "Enter"):
                page.keyboard.press(k)
                page.wait_for_timeout(rng.uniform(300, 600))
        page.wait_for_selector("text=Nothing left for you", timeout=90_000)
    for key, labels in zip(keys, _labels(store, "ps", n), strict=True):
        saved = labels["preference"]
        side, strength = SCALE[key]
        assert sorted(saved["shown"]) == ["answer_a", "answer_b"]
        want = "tie" if side is None else saved["shown"][side]
        assert (saved["choice"], saved["strength"]) == (want, strength), (key, saved)


def _tab_to(page, fid: str, most: int = 40) -> None:
    """Press Tab until the control ``fid`` has the keyboard focus."""
    for _ in range(most):
        if page.evaluate("() => document.activeElement.getAttribute('data-fid')") == fid:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {fid}")


def test_a_ranking_study_is_done_with_the_keyboard_only(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    ranking_project(store, "rk", 3)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        _signed_in(page, app, "rk")
        shown = []  # each item's outputs, as Response A, B, C
        texts = page.locator(f"{LANE} .wb-panel").all_inner_texts()[1:]
        shown.append([t.split("\n")[-1].split(" of ")[0] for t in texts])
        # item 1: B, then C level with it, then A; Enter before the last place is refused
        for key in ("b", "c", "="):
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} .wb-missing")
        assert "item 1" in page.inner_text(f"{LANE} h4")
        page.keyboard.press("a")
        ranking = page.locator(f"{LANE} ol.wb-ranking li").all_inner_texts()
        assert [r.split("\n")[0].split(" ↑")[0] for r in ranking][0].startswith("Response B")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 2')")
        texts = page.locator(f"{LANE} .wb-panel").all_inner_texts()[1:]
        shown.append([t.split("\n")[-1].split(" of ")[0] for t in texts])
        # item 2: A, B, C, then C moved up one place by its button (Tab, Space)
        for key in ("a", "b", "c"):
            page.keyboard.press(key)
        _tab_to(page, "move:order:2:up")
        page.keyboard.press("Space")
        page.wait_for_function(
            "() => document.activeElement.getAttribute('data-fid') === 'move:order:2:up'"
        )
        live = page.inner_text(f"{LANE} #wb-live")
        assert "Response A > Response C > Response B" in live, live
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{LANE} h4:has-text('item 3')")
        texts = page.locator(f"{LANE} .wb-panel").all_inner_texts()[1:]
        shown.append([t.split("\n")[-1].split(" of ")[0] for t in texts])
        # item 3: a slip (A pressed twice takes it out again), then C, A, B
        for key in ("a", "a", "c", "a", "b", "Enter"):
            page.keyboard.press(key)
        page.wait_for_selector("text=Nothing left for you", timeout=60_000)
    declared = ["answer_a", "answer_b", "answer_c"]

    def groups(*places: list[int], at: list[str]) -> list[list[str]]:
        return [sorted((at[i] for i in g), key=declared.index) for g in places]

    got = [labels["order"] for labels in _labels(store, "rk", 3)]
    assert got[0] == groups([1, 2], [0], at=shown[0])
    assert got[1] == groups([0], [2], [1], at=shown[1])
    assert got[2] == groups([2], [0], [1], at=shown[2])


def test_a_ranking_by_clicks_is_named_and_passes_axe_in_light_and_dark(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    ranking_project(store, "rk", 2, k=2)
    for scheme, page in _each_scheme(sqlite_url, store, "annotate?project=rk"):
        lane = page.locator(LANE)
        for name in ("Response C", "Response A", "Response B"):
            lane.get_by_role(
                "button", name=f"{name}, not placed · Rank the answers, best first"
            ).click()
        page.wait_for_selector(f"{LANE} [data-testid=wbSaving]:has-text('all saved')")
        placed = lane.get_by_role(
            "button", name="Response C, place 1 · Rank the answers, best first"
        )
        assert placed.get_attribute("aria-pressed") == "true"
        # the ranking as a list, each output's move buttons named with it and its place
        assert (
            lane.get_by_role(
                "list", name="Your ranking, best first · Rank the answers, best first"
            ).count()
            == 1
        )
        lane.get_by_role(
            "button", name="Move Response B up (place 3) · Rank the answers, best first"
        ).click()
        page.wait_for_selector(f"{LANE} [data-testid=wbSaving]:has-text('all saved')")
        assert "Response C > Response B > Response A" in page.inner_text(f"{LANE} #wb-live")
        assert _axe(page) == [], scheme
