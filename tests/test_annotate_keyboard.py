"""Digit keys per field type, and which targets the keyboard walks through."""

from __future__ import annotations

from kinds import get_kind
from ui.keyboard import HELP_ROWS, option_keys


def _field(kind: str, name: str, settings: dict | None = None):
    return get_kind(kind).human_field(name, settings)


def test_digit_keys_per_field_type() -> None:
    assert option_keys(_field("intent_match", "gold_fact_labels")) == [("C", "1"), ("M", "0")]
    assert option_keys(_field("intent_match", "match")) == [(1, "1"), (0, "0")]
    assert option_keys(_field("actionability", "sources")) == [
        (0, "0"),
        (1, "1"),
        (2, "2"),
        (3, "3"),
    ]
    assert [k for _, k in option_keys(_field("intent_resolution", "resolution"))] == [
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
    ]
    assert option_keys(_field("likert", "label", {"min": 1, "max": 5}))[0] == (1, "1")
    cats = option_keys(_field("categorical", "label", {"labels": ["x", "y", "z"]}))
    assert cats == [("x", "1"), ("y", "2"), ("z", "3")]


def test_no_streamlit_reserved_keys() -> None:
    from ui import keyboard

    shortcuts = [
        keyboard.NEXT_TARGET,
        keyboard.PREVIOUS_TARGET,
        keyboard.SUBMIT,
        keyboard.PREVIOUS_ITEM,
        keyboard.NEXT_ITEM,
        keyboard.SKIP,
        keyboard.FLAG,
    ]
    last_keys = {s.split("+")[-1].lower() for s in shortcuts}
    assert last_keys.isdisjoint({"c", "r"})
    assert (keyboard.NEXT_TARGET, keyboard.PREVIOUS_TARGET) == ("j", "k")
    assert any(k == "j / k" for k, _ in HELP_ROWS)


def test_buttons_print_their_key_when_it_is_not_the_value(store, monkeypatch) -> None:
    from tests.annotate_apptest import open_annotate
    from tests.annotate_fixtures import make_project
    from ui.annotation.context import widget_token

    make_project(store, "intent_resolution")
    at = open_annotate(monkeypatch, store.url, "intent_resolution")
    prefix = f"opt::{widget_token('intent_resolution', 'ir1')}::resolution::"
    labels = {b.key.removeprefix(prefix): b.label for b in at.button if b.key.startswith(prefix)}
    # keys 0-5 walk the six levels 0.0-1.0: "1" is 0.2, and the button says so
    assert labels["0.2"].startswith("[1] 0.2") and labels["1.0"].startswith("[5] 1.0")
    make_project(store, "likert")  # levels 1-5 on keys 1-5: nothing to add
    at = open_annotate(monkeypatch, store.url, "likert")
    assert not [b.label for b in at.button if b.label.startswith("[")]


def test_still_to_answer_goes_once_everything_is_answered(store, monkeypatch) -> None:
    from tests.annotate_apptest import click, open_annotate
    from tests.annotate_fixtures import make_project
    from ui.annotation.context import widget_token

    make_project(store, "actionability")
    at = open_annotate(monkeypatch, store.url, "actionability")
    key = f"opt::{widget_token('actionability', 'ac1')}"
    click(at, f"{key}::errors_detected::1")
    click(at, "submit")  # refused: two questions left
    assert [i.value for i in at.info] == [
        "Not submitted, still to answer: errors corrected, sources (marked in red)."
    ]
    click(at, f"{key}::errors_corrected::0")
    assert [i.value for i in at.info] == [
        "Not submitted, still to answer: sources (marked in red)."
    ]
    click(at, f"{key}::sources::0")
    assert not at.info
    assert [s.value for s in at.success] == ["Everything is answered: press Enter to submit."]
