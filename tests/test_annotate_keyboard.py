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
