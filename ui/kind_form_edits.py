"""The form's edits of a declared kind: each reads the definition from the TOML editor,
changes the plain data and writes the TOML back (widget callbacks of :mod:`ui.kind_form`).

The TOML text (session key ``kd_toml``) is the one source; form widgets live under keys
starting ``kf::`` and are forgotten (:func:`reset_form`) whenever the TOML changes in a way
their values no longer follow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from kinds.declared import DeclarationError, toml_data
from kinds.declared_form import (
    FIELD_ORDER,
    QUESTION_ORDER,
    answer_options,
    change_type,
    new_name,
    ordered,
    parse_likert,
    set_value,
    starter,
)
from workbench_api.kinds import to_toml

TOML_KEY = "kd_toml"
PREFIX = "kf::"
ALWAYS = "(always)"
TOP_ORDER = ("title", "description", "guideline", "judge_hint", "fields", "questions")
#: (whole definition, the table the widget edits, the widget value) -> None
Setter = Callable[[dict[str, Any], dict[str, Any], Any], None]


def read_data() -> dict[str, Any] | None:
    """The definition in the TOML editor as plain data (None when it is not TOML)."""
    try:
        return toml_data(st.session_state.get(TOML_KEY) or "")
    except DeclarationError:
        return None


def write_data(data: dict[str, Any]) -> None:
    """Write the definition back to the TOML editor, keys in their usual order."""
    out = ordered(data, TOP_ORDER)
    if isinstance(out.get("fields"), list):
        out["fields"] = [ordered(f, FIELD_ORDER) for f in out["fields"]]
    if isinstance(out.get("questions"), list):
        out["questions"] = [ordered(q, QUESTION_ORDER) for q in out["questions"]]
    st.session_state[TOML_KEY] = to_toml(out)


def reset_form() -> None:
    """Forget the form's widget values, so they are filled again from the TOML (after
    the TOML was edited, a kind loaded, or an entry added, removed or retyped)."""
    for key in [k for k in st.session_state if str(k).startswith(PREFIX)]:
        del st.session_state[key]


def _table(data: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    table: Any = data
    for step in path:
        table = table[step]
    return table


def apply_change(path: tuple[Any, ...], key: str, setter: Setter, structural: bool) -> None:
    """A widget's change (callback): set it in the definition, rewrite the TOML."""
    data = read_data()
    if data is None:
        return
    setter(data, _table(data, path), st.session_state[key])
    write_data(data)
    if structural:
        reset_form()


def put(name: str, default: Any = None, convert: Callable[[Any], Any] = lambda v: v) -> Setter:
    """A setter writing the widget value (converted) to ``name``; the default drops it."""

    def setter(data: dict[str, Any], table: dict[str, Any], value: Any) -> None:
        set_value(table, name, convert(value), default)

    return setter


def edit(change: Callable[[dict[str, Any]], None]) -> None:
    """Apply ``change`` to the definition, write the TOML, refill the form (callback)."""
    data = read_data()
    if data is None:
        return
    change(data)
    write_data(data)
    reset_form()


def remove(section: str, i: int) -> None:
    """Remove entry ``i`` of ``section`` (callback)."""
    edit(lambda data: data[section].pop(i))


def move_up(section: str, i: int) -> None:
    """Swap entry ``i`` of ``section`` with the one before (callback)."""

    def change(data: dict[str, Any]) -> None:
        entries = data[section]
        entries[i - 1], entries[i] = entries[i], entries[i - 1]

    edit(change)


def add_field() -> None:
    """Append a text field with a free name (callback)."""

    def change(data: dict[str, Any]) -> None:
        fields = data.setdefault("fields", [])
        fields.append({"name": new_name("field", [f.get("name") for f in fields]), "role": "text"})

    edit(change)


def add_question() -> None:
    """Append a question of the type picked in ``kf_new_type`` (callback)."""
    qtype = st.session_state.get("kf_new_type") or "binary"

    def change(data: dict[str, Any]) -> None:
        questions = data.setdefault("questions", [])
        name = new_name("question", [q.get("name") for q in questions])
        questions.append({"name": name, "type": qtype, **starter(qtype, data.get("fields") or [])})

    edit(change)


def rename_question(i: int) -> Setter:
    """A question's new name, also in the conditions that name it."""

    def setter(data: dict[str, Any], q: dict[str, Any], value: Any) -> None:
        old, q["name"] = q.get("name"), str(value).strip()
        for later in (data.get("questions") or [])[i + 1 :]:
            cond = later.get("show_if") if isinstance(later, dict) else None
            if isinstance(cond, dict) and cond.get("question") == old:
                cond["question"] = q["name"]
                reset_form()  # the later condition's picker shows the new name

    return setter


def rename_field(data: dict[str, Any], f: dict[str, Any], value: Any) -> None:
    """A field's new name, also where questions name it (outputs, systems, marked field)."""
    old, f["name"] = f.get("name"), str(value).strip()
    questions = [q for q in data.get("questions") or [] if isinstance(q, dict)]
    comparing = set()  # pairwise questions whose answers name the field
    for q in questions:
        for key in ("outputs", "systems"):
            if isinstance(q.get(key), list) and old in q[key]:
                q[key] = [f["name"] if v == old else v for v in q[key]]
                comparing |= {q.get("name")} if key == "outputs" else set()
        if q.get("field") == old:
            q["field"] = f["name"]
    for q in questions:
        cond = q.get("show_if")
        if isinstance(cond, dict) and cond.get("question") in comparing:
            answers = cond.get("answer")
            if isinstance(answers, list):
                cond["answer"] = [f["name"] if a == old else a for a in answers]
            elif answers == old:
                cond["answer"] = f["name"]
    reset_form()  # pickers that list the field show its new name


def retype(fields: list[dict[str, Any]]) -> Setter:
    """A setter changing a question's type (keys the new type has no use for go)."""

    def setter(data: dict[str, Any], q: dict[str, Any], value: Any) -> None:
        new = change_type(q, str(value), fields)
        q.clear()
        q.update(new)

    return setter


def set_likert(data: dict[str, Any], q: dict[str, Any], value: Any) -> None:
    """Setter: ``LEVEL: label`` lines to a Likert question's labels and levels."""
    labels, levels = parse_likert(str(value))
    q["labels"] = labels
    set_value(q, "levels", levels)


def set_condition(before: dict[str, dict[str, Any]]) -> Setter:
    """A setter asking a question always, or only after an earlier one (its last answer
    preselected)."""

    def setter(data: dict[str, Any], q: dict[str, Any], value: Any) -> None:
        if value == ALWAYS:
            q.pop("show_if", None)
            return
        options = answer_options(before.get(value, {}))
        q["show_if"] = {"question": value, "answer": options[-1:]}

    return setter


def set_answers(data: dict[str, Any], q: dict[str, Any], value: Any) -> None:
    """Setter: the answers a condition accepts."""
    q["show_if"]["answer"] = list(value)
