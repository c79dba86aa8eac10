"""A declared kind from a Potato configuration's ``annotation_schemes`` list (YAML).

Carried over: the annotation types each question type reads (its ``potato`` names and
``from_potato``): ``radio`` and ``select`` (one label), ``multiselect`` (several labels),
``likert`` (``size`` levels; only the ends have words in Potato, the levels between are
named by their number), ``text``, ``number`` and ``slider`` (a score range), ``span``
(spans of the text field). Item fields come from ``item_properties`` (``text_key``,
``context_key``) when the file is a whole Potato config, else one field ``text``. What
has no counterpart (other types, key bindings, tooltips) is listed in the loss report.
"""

from __future__ import annotations

from typing import Any

import yaml

from common.limits import MAX_NESTING
from kinds.declared import DeclarationError
from kinds.kind_file import TOO_DEEP
from kinds.question_registry import question_types

IGNORED_KEYS = {"sequential_key_binding", "label_requirement", "horizontal", "displaying_score"}


def _question(scheme: dict[str, Any], text_field: str, losses: list[str]) -> dict | None:
    name = str(scheme.get("name", ""))
    kind = scheme.get("annotation_type")
    q: dict[str, Any] = {"name": name, "prompt": str(scheme.get("description") or name)}
    own = next((qt for qt in question_types(declarable=True) if kind in qt.potato), None)
    found = own.from_potato(scheme, text_field, losses) if own is not None else None
    if own is None or found is None:
        losses.append(f"scheme {name!r}: annotation type {kind!r} has no counterpart; left out")
        return None
    q |= {"type": own.name, **found}
    dropped = sorted(
        set(scheme)
        - {"name", "annotation_type", "description", "labels", "size", "min_label", "max_label"}
        - {"min_value", "max_value", "min", "max"}
    )
    for key in dropped:
        reason = "keyboard is the workbench's own" if key in IGNORED_KEYS else "no counterpart"
        losses.append(f"scheme {name!r}: {key} not carried over ({reason})")
    return q


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
    text_field = str(props.get("text_key", "text"))
    fields: list[dict[str, Any]] = [{"name": text_field, "role": "text"}]
    if props.get("context_key"):
        fields.insert(0, {"name": str(props["context_key"]), "role": "text"})
    losses: list[str] = []
    questions = [q for s in schemes if (q := _question(dict(s), text_field, losses))]
    title = str(doc.get("annotation_task_name", "Potato task")) if isinstance(doc, dict) else ""
    return {"title": title or "Potato task", "fields": fields, "questions": questions}, losses
