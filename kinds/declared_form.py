"""Edits a kind form makes to a definition (plain data), and a sample item to preview on.

The form on the Task kinds page never builds a kind itself: it changes the plain data
with these helpers, writes it as TOML and lets :mod:`kinds.declared` check it, so the
form and the TOML editor go through one validation. Keys are kept in one order (name
first, a condition last) so that a form edit gives a tidy file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kinds.question_registry import find
from kinds.question_type import COMMON_KEYS

FIELD_ORDER = ("name", "role", "output", "hidden", "required", "description")
QUESTION_ORDER = (
    "name",
    "type",
    "prompt",
    "help",
    "required",
    "field",
    "labels",
    "levels",
    "min",
    "max",
    "outputs",
    "systems",
    "tie",
    "strength",
    "show_if",
)
_LEVEL_LINE = re.compile(r"^\s*(-?\d+)\s*[:=]\s*(.*\S)\s*$")
_SAMPLE = {
    "text": "A sample text for the field {name}: it shows how the item reads.",
    "markdown": "A **sample** text for the field *{name}*.",
    "link": "https://example.org/",
    "code": "def {name}():\n    return 42",
}


def ordered(table: Mapping[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """``table`` with its known keys in ``order``, then any others as they came."""
    out = {k: table[k] for k in order if k in table}
    out.update({k: v for k, v in table.items() if k not in out})
    return out


def set_value(table: dict[str, Any], key: str, value: Any, default: Any = None) -> None:
    """Set ``key``, or drop it when ``value`` is its default (the file stays short)."""
    if value == default or value is None:
        table.pop(key, None)
    else:
        table[key] = value


def lines(text: str) -> list[str]:
    """The non-blank lines of a text area, stripped."""
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def likert_text(question: Mapping[str, Any]) -> str:
    """A Likert question's levels as ``LEVEL: label`` lines."""
    labels = list(question.get("labels") or [])
    levels = question.get("levels") or list(range(1, len(labels) + 1))
    return "\n".join(f"{v}: {label}" for v, label in zip(levels, labels, strict=False))


def parse_likert(text: str) -> tuple[list[str], list[int] | None]:
    """``LEVEL: label`` lines -> (labels, levels); levels None when they are 1, 2, ... or
    when not every line names its level (the labels are then the whole lines)."""
    rows = lines(text)
    matches = [_LEVEL_LINE.match(r) for r in rows]
    if not rows or not all(matches):
        return rows, None
    levels = [int(m.group(1)) for m in matches if m]
    labels = [m.group(2) for m in matches if m]
    return labels, None if levels == list(range(1, len(labels) + 1)) else levels


def change_type(
    question: Mapping[str, Any], new_type: str, fields: list[Mapping[str, Any]]
) -> dict:
    """The question as ``new_type``: keys the new type has no use for are dropped, and a
    type that needs labels, a range, outputs or a field gets a starting value."""
    qt = find(new_type)
    keep = COMMON_KEYS | frozenset(qt.keys if qt else ())
    out = {k: v for k, v in question.items() if k in keep}
    out["type"] = new_type
    for key, value in starter(new_type, fields).items():
        out.setdefault(key, value)
    if qt is not None:
        out = qt.fit(out)
    return ordered(out, QUESTION_ORDER)


def starter(qtype: str, fields: list[Mapping[str, Any]]) -> dict[str, Any]:
    """What a new question of ``qtype`` starts with (the admin edits it on the form)."""
    qt = find(qtype)
    return qt.starter(fields) if qt else {}


def new_name(prefix: str, taken: list[str]) -> str:
    """``prefix1``, ``prefix2``, ...: the first not in ``taken``."""
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def answer_options(question: Mapping[str, Any]) -> list[Any]:
    """The answers a condition on ``question`` may name (empty: none can be offered)."""
    qt = find(question.get("type"))
    return qt.answer_options(question) if qt else []


def type_title(name: str) -> str:
    """What a question type is called on the form (its name when unknown)."""
    qt = find(name)
    return qt.title or name if qt else str(name)


def sample_value(field: Mapping[str, Any]) -> Any:
    """A made-up value for one item field, by its role."""
    name = str(field.get("name", "field"))
    role = field.get("role", "text")
    if role == "chat":
        return [
            {"role": "user", "content": f"A sample question ({name})."},
            {"role": "assistant", "content": "A sample answer."},
        ]
    return _SAMPLE.get(role, _SAMPLE["text"]).format(name=name)


def sample_item(fields: list[Mapping[str, Any]]) -> dict[str, Any]:
    """A made-up item with every declared field, to preview a kind before any data."""
    return {str(f.get("name")): sample_value(f) for f in fields if f.get("name")}
