"""A declared kind from a Potato configuration's ``annotation_schemes`` list (YAML).

Carried over: the annotation types each question type reads (its ``potato`` names and
``from_potato``): ``radio`` and ``select`` (one label), ``multiselect`` (several labels),
``likert`` (``size`` levels; only the ends have words in Potato, the levels between are
named by their number), ``text``, ``number`` and ``slider`` (a score range), ``span`` and
``error_span`` (spans of the text field, or of ``source_field``; error types are the
labels) and ``pairwise`` (two output fields, ``<items_key>_a`` and ``_b``). Item fields
come from ``item_properties`` (``text_key``, ``context_key``) when the file is a whole
Potato config, else one field ``text``; fields a question names are added. A scheme or
field name a kind file cannot hold (spaces, dashes) is made safe, and the annotation
import finds the scheme under its safe name. What has no counterpart (other types, key
bindings, tooltips) is listed in the loss report; a file with no scheme the workbench
can ask is refused naming its schemes.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from common.limits import MAX_NESTING
from kinds.declared import DeclarationError
from kinds.kind_file import TOO_DEEP
from kinds.question_registry import question_types

IGNORED_KEYS = {"sequential_key_binding", "label_requirement", "horizontal", "displaying_score"}
#: keys a type's ``from_potato`` reads (or reports itself), per annotation type
READ_KEYS = {
    "pairwise": {"items_key", "allow_tie", "mode", "scale"},
    "error_span": {"error_types", "severities", "show_score", "max_score", "source_field"},
}
_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")


def safe_name(name: str) -> str:
    """A scheme or field name as a kind file holds it: letters, digits and ``_``, not
    starting with a digit, at most 64 characters (``"my scheme-2"`` -> ``my_scheme_2``)."""
    safe = _UNSAFE.sub("_", str(name)).strip("_") or "question"
    if safe[0].isdigit():
        safe = f"q_{safe}"
    return safe[:64]


def _question(scheme: dict[str, Any], text_field: str, losses: list[str]) -> dict | None:
    name = str(scheme.get("name", ""))
    kind = scheme.get("annotation_type")
    q: dict[str, Any] = {"name": safe_name(name), "prompt": str(scheme.get("description") or name)}
    own = next((qt for qt in question_types(declarable=True) if kind in qt.potato), None)
    found = own.from_potato(scheme, text_field, losses) if own is not None else None
    if own is None or found is None:
        losses.append(f"scheme {name!r}: annotation type {kind!r} has no counterpart; left out")
        return None
    q |= {"type": own.name, **found}
    if q["name"] != name:
        losses.append(f"scheme {name!r}: named {q['name']!r} (letters, digits and _ only)")
    for key in ("outputs", "systems"):
        if key in q:
            q[key] = [safe_name(f) for f in q[key]]
    if "field" in q:
        q["field"] = safe_name(q["field"])
    dropped = sorted(
        set(scheme)
        - {"name", "annotation_type", "description", "labels", "size", "min_label", "max_label"}
        - {"min_value", "max_value", "min", "max"}
        - READ_KEYS.get(str(kind), set())
    )
    for key in dropped:
        reason = "keyboard is the workbench's own" if key in IGNORED_KEYS else "no counterpart"
        losses.append(f"scheme {name!r}: {key} not carried over ({reason})")
    return q


def _item_field(key: str, losses: list[str]) -> str:
    """An item property's field name, made safe (named in the losses when changed)."""
    name = safe_name(key)
    if name != key:
        losses.append(f"item field {key!r}: named {name!r} (letters, digits and _ only)")
    return name


def _name_fields(questions: list[dict[str, Any]], fields: list[dict[str, Any]]) -> None:
    """Add the item fields questions name (a pairwise scheme's two outputs, an error
    span's source field) that the config's item properties do not."""
    have = {f["name"] for f in fields}
    for q in questions:
        for name in q.get("outputs", []):
            if name not in have:
                fields.append({"name": name, "role": "text", "output": True})
                have.add(name)
        if q.get("field") and q["field"] not in have:
            fields.append({"name": q["field"], "role": "text"})
            have.add(q["field"])


class _KindLoader(yaml.SafeLoader):
    """YAML without aliases (``*name``: nine nested ones make a 400-byte file a billion
    values) and nested at most MAX_NESTING levels (the composer recurses)."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise DeclarationError(
                "file", f"YAML aliases are not accepted in kind files (line {mark.line + 1})"
            )
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise DeclarationError("file", TOO_DEEP)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def convert(text: str) -> tuple[dict[str, Any], list[str]]:
    """(kind definition, what could not be carried over) of a Potato YAML file."""
    loader = _KindLoader(text)
    try:
        doc = loader.get_single_data()
    finally:
        loader.dispose()
    schemes = doc.get("annotation_schemes") if isinstance(doc, dict) else doc
    if not isinstance(schemes, list):
        raise ValueError("no annotation_schemes list in the file")
    props = (doc.get("item_properties") or {}) if isinstance(doc, dict) else {}
    losses: list[str] = []
    text_field = _item_field(str(props.get("text_key", "text")), losses)
    fields: list[dict[str, Any]] = [{"name": text_field, "role": "text"}]
    if props.get("context_key"):
        fields.insert(0, {"name": _item_field(str(props["context_key"]), losses), "role": "text"})
    questions = [q for s in schemes if (q := _question(dict(s), text_field, losses))]
    taken: set[str] = set()
    for q in questions:  # "a b" and "a-b" are both a_b: the later ones get a number
        base, n = q["name"], 1
        while q["name"] in taken:
            n += 1
            q["name"] = f"{base[:60]}_{n}"
        if q["name"] != base:
            losses.append(f"question {base!r} repeats a name; this one is {q['name']!r}")
        taken.add(q["name"])
    if not questions:
        named = ", ".join(
            f"{s.get('name')!r} ({s.get('annotation_type')})"
            for s in schemes
            if isinstance(s, dict)
        )
        raise DeclarationError(
            "annotation_schemes", f"no scheme has a workbench question type: {named or 'none'}"
        )
    _name_fields(questions, fields)
    title = str(doc.get("annotation_task_name", "Potato task")) if isinstance(doc, dict) else ""
    return {"title": title or "Potato task", "fields": fields, "questions": questions}, losses
