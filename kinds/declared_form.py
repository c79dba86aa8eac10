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

from kinds.values import TIE

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
#: the keys each question type may carry besides the common ones
TYPE_KEYS: dict[str, frozenset[str]] = {
    "binary": frozenset({"labels"}),
    "single": frozenset({"labels"}),
    "multi": frozenset({"labels"}),
    "likert": frozenset({"labels", "levels"}),
    "score": frozenset({"min", "max"}),
    "text": frozenset(),
    "pairwise": frozenset({"outputs", "systems", "tie", "strength"}),
    "spans": frozenset({"field", "labels"}),
}
COMMON_KEYS = frozenset({"name", "type", "prompt", "help", "required", "show_if"})
#: what each type is called on the form
TYPE_TITLES = {
    "binary": "binary (yes / no)",
    "single": "one label",
    "multi": "several labels",
    "likert": "Likert (a label per level)",
    "score": "score on a range (slider)",
    "text": "free text",
    "pairwise": "pairwise (A / B / tie)",
    "spans": "spans of a text field",
}
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
    keep = COMMON_KEYS | TYPE_KEYS.get(new_type, frozenset())
    out = {k: v for k, v in question.items() if k in keep}
    out["type"] = new_type
    for key, value in starter(new_type, fields).items():
        out.setdefault(key, value)
    if new_type == "binary" and len(out.get("labels") or []) != 2:
        out.pop("labels", None)
    return ordered(out, QUESTION_ORDER)


def starter(qtype: str, fields: list[Mapping[str, Any]]) -> dict[str, Any]:
    """What a new question of ``qtype`` starts with (the admin edits it on the form)."""
    if qtype in ("single", "multi"):
        return {"labels": ["first label", "second label"]}
    if qtype == "likert":
        return {"labels": ["poor", "fair", "good", "very good", "excellent"]}
    if qtype == "score":
        return {"min": 0, "max": 10}
    if qtype == "pairwise":
        outputs = [f.get("name") for f in fields if f.get("output")]
        return {"outputs": outputs} if len(outputs) >= 2 else {}
    if qtype == "spans":
        texts = [
            f.get("name") for f in fields if f.get("role", "text") in ("text", "markdown", "code")
        ]
        return {"field": texts[0] if texts else "", "labels": ["error"]}
    return {}


def new_name(prefix: str, taken: list[str]) -> str:
    """``prefix1``, ``prefix2``, ...: the first not in ``taken``."""
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def answer_options(question: Mapping[str, Any]) -> list[Any]:
    """The answers a condition on ``question`` may name (empty: none can be offered)."""
    qtype = question.get("type")
    labels = list(question.get("labels") or [])
    if qtype == "binary":
        return labels if len(labels) == 2 else ["no", "yes"]
    if qtype in ("single", "multi"):
        return labels
    if qtype == "likert":
        return list(question.get("levels") or range(1, len(labels) + 1))
    if qtype == "pairwise":
        return [*(question.get("outputs") or []), *([TIE] if question.get("tie", True) else [])]
    return []


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
