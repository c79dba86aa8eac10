"""The study settings as form values and back: tables for training items and survey
questions, and the settings dict the form saves (the keys that differ from the defaults,
so a form save and a JSON save of the same choices store the same settings)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studies.flow_settings import DEFAULTS, SURVEY_TYPES

SHOWN = "shown: "
ANSWER = "answer: "
SURVEY_COLUMNS = ("id", "text", "type", "low", "high")


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value == ""


def cell_text(value: Any) -> str:
    """A value as a table cell: text as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def cell_value(text: Any) -> Any:
    """A table cell read back: JSON where it parses (numbers, lists, true/false), else text."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def training_rows(
    training: Sequence[Mapping[str, Any]], shown: Sequence[str], answered: Sequence[str]
) -> list[dict[str, str]]:
    """One row per training item: id, ``shown: <field>`` and ``answer: <field>`` columns
    (text; non-text values as JSON), explanation."""
    rows = []
    for t in training:
        fields, answers = t.get("fields") or {}, t.get("answers") or {}
        row = {"id": str(t.get("id", ""))}
        row |= {SHOWN + f: cell_text(fields[f]) if f in fields else "" for f in shown}
        row |= {ANSWER + f: cell_text(answers[f]) if f in answers else "" for f in answered}
        rows.append(row | {"explanation": str(t.get("explanation", ""))})
    return rows


def training_from_rows(
    rows: Iterable[Mapping[str, Any]], text_fields: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Training items from the table (empty rows dropped). Item fields named in
    ``text_fields`` stay text; other cells are read as JSON where they parse."""
    text_fields = set(text_fields)
    out = []
    for row in rows:
        if all(_blank(v) for v in row.values()):
            continue
        fields, answers = {}, {}
        for col, value in row.items():
            if _blank(value):
                continue
            if col.startswith(SHOWN):
                name = col.removeprefix(SHOWN)
                fields[name] = value if name in text_fields else cell_value(value)
            elif col.startswith(ANSWER):
                answers[col.removeprefix(ANSWER)] = cell_value(value)
        item: dict[str, Any] = {}
        if not _blank(row.get("id")):
            item["id"] = str(row["id"])
        item |= {"fields": fields, "answers": answers}
        if not _blank(row.get("explanation")):
            item["explanation"] = str(row["explanation"])
        out.append(item)
    return out


def survey_rows(survey: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per survey question (type text or likert; the scale ends for likert)."""
    return [
        {
            "id": str(q.get("id", "")),
            "text": str(q.get("text", "")),
            "type": q.get("type", "text"),
            "low": q.get("low", 1),
            "high": q.get("high", 5),
        }
        for q in survey
    ]


def survey_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Survey questions from the table; the scale is kept for likert questions only."""
    out = []
    for row in rows:
        if all(_blank(row.get(c)) for c in SURVEY_COLUMNS):
            continue
        kind = row.get("type") if row.get("type") in SURVEY_TYPES else "text"
        q: dict[str, Any] = {} if _blank(row.get("id")) else {"id": str(row["id"])}
        q |= {"text": "" if _blank(row.get("text")) else str(row["text"])}
        if kind == "likert":
            q["type"] = "likert"
            for end in ("low", "high"):
                if not _blank(row.get(end)):
                    value = row[end]
                    q[end] = int(value) if float(value).is_integer() else value
        out.append(q)
    return out


def without_defaults(values: Mapping[str, Any], token: str = "") -> dict[str, Any]:
    """The settings to store: every value that differs from its default, in the order of
    :data:`DEFAULTS`, and the study's token (the links carry it) when there is one."""
    out = {}
    for key, default in DEFAULTS.items():
        if key == "token":
            continue
        value = values.get(key, default)
        if isinstance(value, str):
            value = value.strip()
        if value != default:
            out[key] = value
    if token:
        out["token"] = token
    return out
