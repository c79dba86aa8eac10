"""Declared task kinds: a study described in a file (TOML) instead of Python.

:func:`parse_definition` checks a definition (TOML text or plain data) and returns a
:class:`KindDefinition`; the first problem raises :class:`DeclarationError` with one line
naming the key and the reason. :func:`build_kind` turns a checked definition into an
ordinary :class:`~kinds.base.TaskKind`, so nothing downstream tells a declared kind from
a built-in one. A stored version is named ``decl:NAME@VERSION`` (:func:`kind_ref`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from kinds.base import FieldType, HumanField, ItemField, TaskKind, ValidationError
from kinds.kind_file import TOO_DEEP, KindFileError, check_data, kind_text
from kinds.markdown_check import html_in_markdown
from kinds.pairwise_swap import pairwise_swappable
from kinds.values import answer_key

PREFIX = "decl:"
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,47}$")
FIELD_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
ROLES = ("text", "markdown", "chat", "link", "code")
#: question type in the file -> field type of the kind
TYPES: dict[str, FieldType] = {
    "binary": FieldType.BINARY,
    "single": FieldType.CATEGORICAL,
    "multi": FieldType.MULTI_LABEL,
    "likert": FieldType.ORDINAL,
    "score": FieldType.INTERVAL,
    "text": FieldType.TEXT,
    "pairwise": FieldType.PAIRWISE,
    "spans": FieldType.SPANS,
}
TOP_KEYS = {"title", "description", "guideline", "judge_hint", "fields", "questions"}
FIELD_KEYS = {"name", "role", "output", "hidden", "required", "description"}
QUESTION_KEYS = {
    "name",
    "type",
    "prompt",
    "help",
    "required",
    "labels",
    "levels",
    "min",
    "max",
    "outputs",
    "tie",
    "strength",
    "systems",
    "field",
    "show_if",
}
_LABELLED = ("single", "multi", "likert", "spans")


class DeclarationError(ValueError):
    """A kind definition that cannot be used; one line: the key, then the reason."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key


@dataclass(frozen=True)
class KindDefinition:
    """A checked definition: the plain data (as stored) and the kind's parts."""

    data: dict[str, Any]
    item_fields: tuple[ItemField, ...]
    questions: tuple[HumanField, ...]


def kind_ref(name: str, version: int) -> str:
    """The kind name projects store for one version: ``decl:NAME@VERSION``."""
    return f"{PREFIX}{name}@{version}"


def split_ref(ref: str) -> tuple[str, int | None] | None:
    """``decl:NAME@N`` -> (NAME, N); ``decl:NAME`` -> (NAME, None); others -> None."""
    if not ref.startswith(PREFIX):
        return None
    name, _, version = ref[len(PREFIX) :].partition("@")
    if version and not version.isdigit():
        return None
    return name, int(version) if version else None


def check_kind_name(name: str) -> None:
    """A declared kind's name: a letter, then letters, digits, ``_`` or ``-`` (<= 48)."""
    if not NAME_RE.match(name or ""):
        raise DeclarationError(
            "name", f"{name!r} must start with a letter and hold only letters, digits, _ or -"
        )


def toml_data(text: str | bytes) -> dict[str, Any]:
    """A TOML definition's plain data, read within the kind file caps (UTF-8, BOM
    dropped, size, nesting), not yet checked as a definition."""
    try:
        return tomllib.loads(kind_text(text))
    except KindFileError as exc:
        raise DeclarationError(exc.where, str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise DeclarationError("file", f"not valid TOML ({exc})") from None
    except RecursionError:
        raise DeclarationError("file", TOO_DEEP) from None


def parse_toml(text: str | bytes) -> KindDefinition:
    """Read and check a TOML definition."""
    return parse_definition(toml_data(text))


def parse_definition(data: Mapping[str, Any]) -> KindDefinition:
    """Check a definition (plain data) and build its item fields and questions."""
    try:
        check_data(data)
    except KindFileError as exc:
        raise DeclarationError(exc.where, str(exc)) from None
    _no_unknown(data, TOP_KEYS, "")
    for key in ("title", "description", "guideline", "judge_hint"):
        _markdown(data.get(key, ""), key)
    fields = _list_of_tables(data, "fields")
    questions = _list_of_tables(data, "questions")
    item_fields = tuple(_item_field(f, i) for i, f in enumerate(fields))
    _distinct([f.name for f in item_fields], "fields", "field")
    by_name = {f.name: f for f in item_fields}
    built: list[HumanField] = []
    for i, q in enumerate(questions):
        built.append(_question(q, f"questions[{i}]", by_name, built))
    _distinct([q.name for q in built], "questions", "question")
    return KindDefinition(dict(data), item_fields, tuple(built))


def build_kind(ref: str, definition: KindDefinition) -> TaskKind:
    """The :class:`TaskKind` of one stored version (``ref`` is its ``decl:`` name)."""
    data = definition.data
    questions = definition.questions
    return TaskKind(
        name=ref,
        title=str(data.get("title") or ref),
        description=str(data.get("description", "")),
        item_fields=definition.item_fields,
        human_fields_fn=lambda settings: questions,
        guideline=str(data.get("guideline", "")),
        judge_hint=str(data.get("judge_hint", "")),
        swappable=pairwise_swappable(questions),
    )


# -- checks ----------------------------------------------------------------------------


def _no_unknown(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    if not isinstance(table, Mapping):
        raise DeclarationError(where or "file", "must be a table")
    for key in table:
        if key not in allowed:
            raise DeclarationError(
                f"{where}.{key}" if where else key,
                f"unknown key (known: {', '.join(sorted(allowed))})",
            )


def _markdown(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise DeclarationError(key, "must be text")
    tag = html_in_markdown(value)
    if tag:
        raise DeclarationError(key, f"Markdown may not hold HTML (found {tag!r})")
    return value


def _list_of_tables(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = data.get(key)
    if not value:
        raise DeclarationError(key, f"at least one [[{key}]] entry is needed")
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise DeclarationError(key, f"must be a list of tables ([[{key}]])")
    return value


def _distinct(names: list[str], key: str, what: str) -> None:
    seen: set[str] = set()
    for i, n in enumerate(names):
        if n in seen:
            raise DeclarationError(f"{key}[{i}].name", f"duplicate {what} {n!r}")
        seen.add(n)


def _flag(table: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise DeclarationError(f"{where}.{key}", "must be true or false")
    return value


def _name(table: Mapping[str, Any], where: str) -> str:
    name = table.get("name")
    if not isinstance(name, str) or not FIELD_RE.match(name):
        raise DeclarationError(
            f"{where}.name", f"{name!r} must be a letter or _, then letters, digits or _"
        )
    return name


def _item_field(f: Mapping[str, Any], i: int) -> ItemField:
    where = f"fields[{i}]"
    _no_unknown(f, FIELD_KEYS, where)
    name = _name(f, where)
    role = f.get("role", "text")
    if role not in ROLES:
        raise DeclarationError(
            f"{where}.role", f"unknown role {role!r} (known: {', '.join(ROLES)})"
        )
    return ItemField(
        name,
        kind="chat" if role == "chat" else "text",
        required=_flag(f, "required", where, True),
        description=_markdown(f.get("description", ""), f"{where}.description"),
        role=role,
        hidden=_flag(f, "hidden", where, False),
        output=_flag(f, "output", where, False),
    )


def _labels(q: Mapping[str, Any], where: str, *, needed: int = 2) -> tuple[str, ...]:
    labels = q.get("labels")
    if not isinstance(labels, list) or len(labels) < needed:
        raise DeclarationError(f"{where}.labels", f"a list of at least {needed} labels is needed")
    out = []
    for j, label in enumerate(labels):
        if not isinstance(label, str) or not label.strip():
            raise DeclarationError(f"{where}.labels[{j}]", "must be non-empty text")
        _markdown(label, f"{where}.labels[{j}]")
        out.append(label.strip())
    if len(set(out)) != len(out):
        dup = next(v for v in out if out.count(v) > 1)
        raise DeclarationError(f"{where}.labels", f"labels must be distinct ({dup!r} repeats)")
    return tuple(out)


def _question(
    q: Mapping[str, Any], where: str, fields: Mapping[str, ItemField], before: list[HumanField]
) -> HumanField:
    _no_unknown(q, QUESTION_KEYS, where)
    name = _name(q, where)
    qtype = q.get("type")
    if qtype not in TYPES:
        raise DeclarationError(
            f"{where}.type", f"unknown type {qtype!r} (known: {', '.join(TYPES)})"
        )
    common: dict[str, Any] = {
        "description": _markdown(q.get("prompt", name), f"{where}.prompt"),
        "help": _markdown(q.get("help", ""), f"{where}.help"),
        "required": _flag(q, "required", where, True),
    }
    spec = HumanField(name, TYPES[qtype], **common, **_typed(qtype, q, where, fields))
    if "show_if" in q:
        spec = _with_condition(spec, q["show_if"], f"{where}.show_if", before)
    return spec


def _typed(
    qtype: str, q: Mapping[str, Any], where: str, fields: Mapping[str, ItemField]
) -> dict[str, Any]:
    """The type's own attributes of a question (labels, levels, range, outputs, field)."""
    if qtype == "binary":
        labels = _labels(q, where) if "labels" in q else ("no", "yes")
        if len(labels) != 2:
            raise DeclarationError(f"{where}.labels", "a binary question has two labels: no, yes")
        return {"values": (0, 1), "level_descriptions": {0: labels[0], 1: labels[1]}}
    if qtype in ("single", "multi"):
        return {"values": _labels(q, where)}
    if qtype == "likert":
        labels = _labels(q, where)
        levels = q.get("levels", list(range(1, len(labels) + 1)))
        if (
            not isinstance(levels, list)
            or len(levels) != len(labels)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in levels)
            or len(set(levels)) != len(levels)
        ):
            raise DeclarationError(
                f"{where}.levels", "distinct whole numbers, one per label, are needed"
            )
        return {
            "values": tuple(levels),
            "level_descriptions": dict(zip(levels, labels, strict=True)),
        }
    if qtype == "score":
        lo, hi = q.get("min", 0), q.get("max", 1)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lo, hi)):
            raise DeclarationError(f"{where}.min", "min and max must be numbers")
        if lo >= hi:
            raise DeclarationError(f"{where}.max", f"max {hi} must be above min {lo}")
        return {"minimum": float(lo), "maximum": float(hi)}
    if qtype == "pairwise":
        return _pairwise(q, where, fields)
    if qtype == "spans":
        source = q.get("field")
        if source not in fields or fields[source].role not in ("text", "markdown", "code"):
            raise DeclarationError(
                f"{where}.field", f"{source!r} is not a declared text, markdown or code field"
            )
        return {"values": _labels(q, where, needed=1), "source_field": source}
    if "labels" in q:
        raise DeclarationError(f"{where}.labels", f"a {qtype} question has no labels")
    return {}


def _pairwise(q: Mapping[str, Any], where: str, fields: Mapping[str, ItemField]) -> dict[str, Any]:
    outputs = q.get("outputs") or [f.name for f in fields.values() if f.output]
    if not isinstance(outputs, list) or len(outputs) < 2:
        raise DeclarationError(f"{where}.outputs", "two or more output fields are needed")
    for j, o in enumerate(outputs):
        if o not in fields:
            raise DeclarationError(f"{where}.outputs[{j}]", f"{o!r} is not a declared field")
    if len(set(outputs)) != len(outputs):
        raise DeclarationError(f"{where}.outputs", "outputs must be distinct")
    systems = q.get("systems", [])
    if systems and (not isinstance(systems, list) or len(systems) != len(outputs)):
        raise DeclarationError(f"{where}.systems", "one system field per output is needed")
    for j, s in enumerate(systems):
        if s not in fields:
            raise DeclarationError(f"{where}.systems[{j}]", f"{s!r} is not a declared field")
    strengths = (
        _labels({"labels": q["strength"]}, f"{where}.strength", needed=1)
        if ("strength" in q)
        else ()
    )
    return {
        "outputs": tuple(outputs),
        "allow_tie": _flag(q, "tie", where, True),
        "strengths": strengths,
        "systems": tuple(systems),
    }


def _with_condition(
    spec: HumanField, cond: Any, where: str, before: list[HumanField]
) -> HumanField:
    if not isinstance(cond, Mapping) or set(cond) != {"question", "answer"}:
        raise DeclarationError(where, "must be a table with 'question' and 'answer'")
    target = next((b for b in before if b.name == cond["question"]), None)
    if target is None:
        raise DeclarationError(
            f"{where}.question",
            f"{cond['question']!r} is not a question declared before {spec.name!r}",
        )
    answers = cond["answer"] if isinstance(cond["answer"], list) else [cond["answer"]]
    if not answers:
        raise DeclarationError(f"{where}.answer", "name at least one answer")
    canonical = []
    for a in answers:
        try:
            canonical.append(answer_key(target, a))
        except ValidationError as exc:
            raise DeclarationError(
                f"{where}.answer", f"{a!r} is no answer to {target.name!r}: {exc}"
            ) from None
    return replace(spec, show_if=(target.name, tuple(canonical)))
