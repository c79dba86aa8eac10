"""Real browser: keys typed ahead at human speed land on the item they were pressed on.

An annotator who knows the task types without waiting for the screen: the next key
0.3-0.6 s after the one before, Enter included (issue #46: on the ordinary page, 11 of 12
pairwise answers typed so were stored as another choice). Through a pairwise study, a
four-question Likert rubric and an intent-match fact list, 50 keys or more each, every
stored answer must be the one the key pressed, on the item it was pressed on. The keys
are those the options are labelled with: A / B / T, digits, C / M (and 1 / 0), Y / N.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from accounts import users as accounts
from annotation_store import Store
from studies import assignments as asg
from tests.annotate_fixtures import ITEMS
from tests.e2e.harness import LOCAL_AUTH, browser_page, open_page, running_app, sign_in
from tests.support.kind_examples import example_project
from workbench_api.kinds import save_kind

pytestmark = pytest.mark.e2e

LANE = "#wb-lane"
PAIRWISE_KIND = """
title = "Which answer is better"
description = "Two answers to one request, shown in a shuffled order."

[[fields]]
name = "request"
role = "text"

[[fields]]
name = "answer_a"
role = "text"
output = true

[[fields]]
name = "answer_b"
role = "text"
output = true

[[fields]]
name = "system_a"
hidden = true

[[fields]]
name = "system_b"
hidden = true

[[questions]]
name = "preference"
type = "pairwise"
prompt = "Which answer is better?"
outputs = ["answer_a", "answer_b"]
systems = ["system_a", "system_b"]
"""


def _annotator(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")


def _type_ahead(app, project: str, keys: Sequence[Sequence[str]], seed: int) -> None:
    """Sign in as ana and type ``keys`` (one list per item, Enter after each) with a
    pause of 0.3-0.6 s after every key, never waiting for anything drawn."""
    rng = random.Random(seed)
    with browser_page() as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, f"annotate?project={project}")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
        # the second item is fetched while the first is on screen, as for a person reading it
        page.wait_for_function("() => window.__wbLane && window.__wbLane.after !== undefined")
        for item_keys in keys:
            for key in [*item_keys, "Enter"]:
                page.keyboard.press(key)
                page.wait_for_timeout(rng.uniform(300, 600))
        page.wait_for_selector("text=Nothing left for you", timeout=90_000)


def _stored(store: Store, project: str, n: int) -> list[dict[str, Any]]:
    """ana's labels of her items 1..n, in her order of work (the panel leaves for the
    ordinary page only once every post is saved), each one submitted."""
    order = asg.display_order(store, project, "ana")
    assert len(order) == n
    states = [store.item_state(project, i, "ana") for i in order]
    assert [s["status"] for s in states] == ["submitted"] * n
    return [s["labels"] for s in states]


def _keys(rng: random.Random, n: int, per_item: Callable[[random.Random], list[str]]) -> list:
    return [per_item(rng) for _ in range(n)]


def test_pairwise_keys_typed_ahead_are_stored_as_pressed(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    save_kind(store, "pair", PAIRWISE_KIND)
    store.create_project("pair", "decl:pair", {"k": 1})
    n = 26  # a key and Enter each: 52 keys
    store.upsert_items(
        "pair",
        [
            {
                "item_id": f"pr{i:02d}",
                "fields": {
                    "request": f"Request {i}",
                    "answer_a": f"First answer {i}",
                    "answer_b": f"Second answer {i}",
                    "system_a": "model-x",
                    "system_b": "model-y",
                },
            }
            for i in range(n)
        ],
    )
    _annotator(store)
    keys = _keys(random.Random(46), n, lambda r: [r.choice("abt")])
    with running_app(sqlite_url, LOCAL_AUTH) as app:
        _type_ahead(app, "pair", keys, seed=1)
    for (key,), labels in zip(keys, _stored(store, "pair", n), strict=True):
        saved = labels["preference"]
        want = "tie" if key == "t" else saved["shown"]["ab".index(key)]
        assert saved["choice"] == want, (key, saved)
        assert sorted(saved["shown"]) == ["answer_a", "answer_b"]


def test_pairwise_is_shown_blind_as_response_a_and_b(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    save_kind(store, "pair", PAIRWISE_KIND)
    store.create_project("pair", "decl:pair", {"k": 1})
    fields = {"request": "R", "answer_a": "First", "answer_b": "Second", "system_a": "model-x"}
    store.upsert_items("pair", [{"item_id": "p1", "fields": {**fields, "system_b": "model-y"}}])
    _annotator(store)
    phone = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page(**phone) as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        open_page(page, app, "annotate?project=pair")
        page.wait_for_selector(f"{LANE} h4:has-text('item 1')")
        # a touch screen: no key hints, every button a 44 px target or more
        assert page.evaluate("() => matchMedia('(pointer: coarse)').matches")
        hints = page.locator(f"{LANE} .wb-key, {LANE} .wb-key-help")
        assert hints.count() > 0 and all(not h.is_visible() for h in hints.all())
        sizes = page.evaluate(
            "() => [...document.querySelectorAll('#wb-lane button')].map((b) => {"
            " const r = b.getBoundingClientRect(); return Math.min(r.width, r.height); })"
        )
        assert min(sizes) >= 44, sizes
        titles = page.locator(f"{LANE} .wb-panel h5").all_inner_texts()
        assert titles == ["Request", "Response A", "Response B"]
        text = page.inner_text(LANE)
        assert "Answer a" not in text and "Answer b" not in text and "model-" not in text
        # at 390 px the panel fills the width and nothing scrolls sideways
        width = page.evaluate("() => document.getElementById('wb-lane').scrollWidth")
        assert width <= 390
        texts = page.locator(f"{LANE} .wb-panel").all_inner_texts()
        page.keyboard.press("b")
        page.keyboard.press("Enter")
        page.wait_for_selector("text=Nothing left for you", timeout=60_000)
        labels = _stored(store, "pair", 1)[0]["preference"]
        shown = labels["shown"]
        # the order stored is the order shown: Response A is the first output stored
        assert texts[1].endswith(fields[shown[0]]) and texts[2].endswith(fields[shown[1]])
        assert labels["choice"] == shown[1]


def test_a_four_question_likert_rubric_typed_ahead_is_stored_as_pressed(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    example_project(store, "summary_rubric", "rubric", {"k": 1})
    base = [store.item("rubric", i).fields for i in ("s1", "s2", "s3", "s4")]
    n = 11  # four digits and Enter each: 55 keys
    store.upsert_items(
        "rubric", [{"item_id": f"r{i:02d}", "fields": base[i % 4]} for i in range(4, n)]
    )
    _annotator(store)
    keys = _keys(random.Random(7), n, lambda r: [str(r.randint(1, 5)) for _ in range(4)])
    with running_app(sqlite_url, LOCAL_AUTH) as app:
        _type_ahead(app, "rubric", keys, seed=2)
    questions = ("coherence", "consistency", "fluency", "relevance")
    for digits, labels in zip(keys, _stored(store, "rubric", n), strict=True):
        assert [labels[q] for q in questions] == [int(d) for d in digits]


def test_intent_match_facts_typed_ahead_are_stored_as_pressed(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("im", "intent_match", {"k": 1})
    first = ITEMS["intent_match"][0]  # five gold facts, four predicted: ten keys and Enter
    n = 5
    items = []
    for i in range(n):
        item = copy.deepcopy(first)
        item["item_id"] = f"im{i}"
        items.append(item)
    store.upsert_items("im", items)
    _annotator(store)
    n_gold, n_pred = len(first["fields"]["gold_facts"]), len(first["fields"]["predicted_facts"])

    def per_item(r: random.Random) -> list[str]:
        return [r.choice("cm10") for _ in range(n_gold + n_pred)] + [r.choice("yn10")]

    keys = _keys(random.Random(11), n, per_item)
    with running_app(sqlite_url, LOCAL_AUTH) as app:
        _type_ahead(app, "im", keys, seed=3)
    fact = {"c": "C", "1": "C", "m": "M", "0": "M"}
    for pressed, labels in zip(keys, _stored(store, "im", n), strict=True):
        assert labels["gold_fact_labels"] == [fact[k] for k in pressed[:n_gold]]
        assert labels["predicted_fact_labels"] == [fact[k] for k in pressed[n_gold:-1]]
        assert labels["match"] == (1 if pressed[-1] in "y1" else 0)
