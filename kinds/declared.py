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

from kinds.base import HumanField, ItemField, TaskKind, ValidationError
from kinds.kind_file import TOO_DEEP, KindFileError, check_data, kind_text
from kinds.question_registry import declarable_names, find, question_types
from kinds.question_type import COMMON_KEYS, DeclarationError, flag, markdown
from kinds.values import answer_key

__all__ = ["DeclarationError", "KindDefinition", "build_kind", "parse_definition"]

PREFIX = "decl:"
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,47}$")
FIELD_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
ROLES = ("text", "markdown", "chat", "link", "code")
TOP_KEYS = {"title", "description", "guideline", "judge_hint", "fields", "questions"}
FIELD_KEYS = {"name", "role", "output", "hidden", "required", "description"}


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
        markdown(data.get(key, ""), key)
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
        swappable=swappable(questions),
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
        required=flag(f, "required", where, True),
        description=markdown(f.get("description", ""), f"{where}.description"),
        role=role,
        hidden=flag(f, "hidden", where, False),
        output=flag(f, "output", where, False),
    )


def question_keys() -> set[str]:
    """Every key some question type takes (a key no type knows is refused)."""
    return set(COMMON_KEYS).union(*(qt.keys for qt in question_types(declarable=True)))


def swappable(questions: tuple[HumanField, ...]) -> tuple[tuple[str, str], ...]:
    """The distinct output pairs a custom judge may read exchanged, in order."""
    pairs: list[tuple[str, str]] = []
    for q in questions:
        for pair in q.question_type.swappable(q):
            if pair not in pairs:
                pairs.append(pair)
    return tuple(pairs)


def _question(
    q: Mapping[str, Any], where: str, fields: Mapping[str, ItemField], before: list[HumanField]
) -> HumanField:
    _no_unknown(q, question_keys(), where)
    name = _name(q, where)
    qt = find(q.get("type"))
    if qt is None:
        raise DeclarationError(
            f"{where}.type",
            f"unknown type {q.get('type')!r} (known: {', '.join(declarable_names())})",
        )
    common: dict[str, Any] = {
        "description": markdown(q.get("prompt", name), f"{where}.prompt"),
        "help": markdown(q.get("help", ""), f"{where}.help"),
        "required": flag(q, "required", where, True),
    }
    assert qt.parse is not None  # registration refuses a declarable type without one
    spec = HumanField(name, qt.field_type, **common, **qt.parse(q, where, fields))
    if "show_if" in q:
        spec = _with_condition(spec, q["show_if"], f"{where}.show_if", before)
    return spec


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
