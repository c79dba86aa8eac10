"""Real browser, keyboard only: five items of every built-in kind completed through the
annotation client (issue #46) with the keys the options are labelled with (C / M for
facts, Y / N for yes / no, digits for scales and label sets; a score typed in its box
after J, the next-question key), Enter to submit. Each stored answer is the one keyed."""

from __future__ import annotations

from typing import Any

import pytest

from accounts import users as accounts
from annotation_store import Store
from kinds.base import FACT_IMPLIED, FACT_NOT_IMPLIED
from studies import assignments as asg
from tests.annotate_fixtures import ITEMS, SETTINGS
from tests.e2e.harness import LOCAL_AUTH, browser_page, open_page, running_app, sign_in

pytestmark = pytest.mark.e2e

LANE = "#wb-lane"
FACT = {"c": FACT_IMPLIED, "m": FACT_NOT_IMPLIED}
YES_NO = {"y": 1, "n": 0}
RESOLUTION = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
CATEGORIES = SETTINGS["categorical"]["labels"]


def _intent_match(i: int) -> tuple[list[str], dict[str, Any]]:
    gold, pred, match = ["cm", "mc", "cc", "mm", "cm"][i], "cmcmc"[i], "ynyny"[i]
    return [*gold, pred, match], {
        "gold_fact_labels": [FACT[k] for k in gold],
        "predicted_fact_labels": [FACT[pred]],
        "match": YES_NO[match],
    }


def _actionability(i: int) -> tuple[list[str], dict[str, Any]]:
    keys = [str(i % 3), str((i + 1) % 3), str(i % 4)]
    names = ("errors_detected", "errors_corrected", "sources")
    return keys, {n: int(k) for n, k in zip(names, keys, strict=True)}


#: kind -> (keys for its item at position i, the answers they store)
KEYED = {
    "intent_match": _intent_match,
    "actionability": _actionability,
    "dialogue_faithfulness": lambda i: (["yn"[i % 2]], {"faithful": YES_NO["yn"[i % 2]]}),
    "intent_resolution": lambda i: ([str(i)], {"resolution": RESOLUTION[i]}),
    "binary": lambda i: (["nyn"[i % 3]], {"label": YES_NO["nyn"[i % 3]]}),
    "categorical": lambda i: ([str(i % 3 + 1)], {"label": CATEGORIES[i % 3]}),
    "likert": lambda i: ([str(5 - i)], {"label": 5 - i}),
    "score": lambda i: (["j", *f"0.{2 * i + 1}"], {"label": (2 * i + 1) / 10}),
}
N = 5


def _projects(store: Store) -> None:
    for kind in KEYED:
        # the shortest sample item of the kind, five times
        sample = min(ITEMS[kind], key=lambda it: len(repr(it["fields"])))
        store.create_project(kind, kind, {"k": 1, **SETTINGS.get(kind, {})})
        store.upsert_items(
            kind, [{"item_id": f"{kind}{n}", "fields": sample["fields"]} for n in range(N)]
        )
    accounts.add_user(store, "ana", "annotator", password="ana-password")


def test_five_items_of_every_built_in_kind_by_keyboard_only(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    _projects(store)
    with running_app(sqlite_url, LOCAL_AUTH) as app, browser_page() as page:
        open_page(page, app)
        sign_in(page, "ana", "ana-password")
        for kind, keyed in KEYED.items():
            open_page(page, app, f"annotate?project={kind}")
            for i in range(N):
                page.wait_for_selector(f"{LANE} h4:has-text('item {i + 1}')")
                # the keyboard is in the panel from the start
                assert page.evaluate("() => document.activeElement.tagName") == "H4", kind
                for key in [*keyed(i)[0], "Enter"]:
                    page.keyboard.press(key)
            page.wait_for_selector("text=Nothing left for you", timeout=30_000)
            order = asg.display_order(store, kind, "ana")
            states = [store.item_state(kind, item, "ana") for item in order]
            assert [s["status"] for s in states] == ["submitted"] * N, kind
            assert [s["labels"] for s in states] == [keyed(i)[1] for i in range(N)], kind
