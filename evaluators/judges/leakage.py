"""The leakage guard by content: which items a judge version saw with their answer.

A worked example shows the judge an item's text together with the human answer. Scoring
that text again, under its own id or under any other id, measures memory, not judgement.
So an item is left out of a version's figures when the normalised text of the fields the
version's template reads equals that of one of its worked examples.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from evaluators.judges.spec import JudgeSpec, item_field_names
from evaluators.judges.template import TemplateError, check_template

FEW_SHOT = "a few-shot example"
_SPACE = re.compile(r"\s+")


def normalise(value: Any) -> str:
    """Text compared by the guard: NFKC, case-folded, runs of white space as one space;
    a list is its normalised elements joined by a newline."""
    if isinstance(value, list | tuple):
        return "\n".join(normalise(v) for v in value)
    text = unicodedata.normalize("NFKC", "" if value is None else str(value))
    return _SPACE.sub(" ", text.casefold()).strip()


def template_fields(spec: JudgeSpec) -> list[str]:
    """The item fields the version's template and system text read (every item field of
    the kind when the template cannot be parsed, which a saved version never is)."""
    names = item_field_names(spec.kind)
    try:
        used = check_template(spec.template, names) | check_template(spec.system, names)
    except TemplateError:
        return names
    return [n for n in names if n in used] or names


def content_key(fields: Mapping[str, Any], names: list[str]) -> tuple[str, ...] | None:
    """The normalised texts of ``names`` in ``fields`` (None when all are empty)."""
    key = tuple(normalise(fields.get(n)) for n in names)
    return key if any(key) else None


def leaked_items(spec: JudgeSpec, items: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """item_id -> reason, for every item the version's worked examples leak: the examples
    themselves and any item whose template text equals an example's."""
    out: dict[str, str] = {}
    names = template_fields(spec)
    keys: dict[tuple[str, ...], str] = {}
    for ex in spec.few_shot.examples:
        item_id = str(ex["item_id"])
        out[item_id] = FEW_SHOT
        key = content_key(ex.get("fields") or items.get(item_id) or {}, names)
        if key is not None:
            keys.setdefault(key, item_id)
    for item_id, fields in items.items():
        if item_id in out:
            continue
        source = keys.get(content_key(fields, names) or ())
        if source is not None:
            out[item_id] = f"the same text as few-shot example {source}"
    return out
