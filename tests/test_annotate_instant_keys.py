"""The state the Annotate page hands its in-browser key handler (ui/annotation/
instant_keys.py): every target in keyboard order, each key mapped to the CSS class of the
very button Streamlit draws for that choice, and the server's focus and save counter."""

from __future__ import annotations

import html
import json
import re

from tests.annotate_apptest import click, open_annotate
from tests.annotate_fixtures import make_project
from ui.annotation.context import widget_token
from ui.annotation.instant_keys import button_class


def _state(at) -> dict:
    (body,) = [h.proto.body for h in at.get("html") if "window.__wbKeys" in h.proto.body]
    return json.loads(html.unescape(re.search(r'data-config="([^"]*)"', body).group(1)))


def test_every_key_names_the_button_of_its_choice(store, monkeypatch) -> None:
    make_project(store, "intent_match")
    at = open_annotate(monkeypatch, store.url, "intent_match")
    tok = widget_token("intent_match", "im1")
    state = _state(at)
    # five gold facts, four predicted facts, then the match question
    assert len(state["targets"]) == 10
    assert state["targets"][0]["keys"] == {
        "1": f"st-key-opt--{tok}--gold_fact_labels-0--C",
        "0": f"st-key-opt--{tok}--gold_fact_labels-0--M",
    }
    assert state["targets"][9]["keys"] == {
        "1": f"st-key-opt--{tok}--match--1",
        "0": f"st-key-opt--{tok}--match--0",
    }
    assert (state["focus"], state["sync"], state["error"]) == (0, 0, False)
    assert not any(t["multi"] for t in state["targets"])
    drawn = {button_class(b.key) for b in at.button if b.key}
    assert {c for t in state["targets"] for c in t["keys"].values()} <= drawn

    click(at, f"opt::{tok}::gold_fact_labels.0::C")  # a save moves the focus and counts
    state = _state(at)
    assert (state["focus"], state["sync"]) == (1, 1)


def test_levels_on_keys_that_are_not_their_values(store, monkeypatch) -> None:
    make_project(store, "intent_resolution")
    at = open_annotate(monkeypatch, store.url, "intent_resolution")
    tok = widget_token("intent_resolution", "ir1")
    (target,) = _state(at)["targets"]
    # six levels 0.0-1.0 on the keys 0-5; "1" is 0.2, never 1.0
    assert target["keys"]["1"] == f"st-key-opt--{tok}--resolution--0-2"
    assert target["keys"]["5"] == f"st-key-opt--{tok}--resolution--1-0"
    assert len(target["keys"]) == 6
