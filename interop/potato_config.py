"""A declared kind from a Potato configuration's ``annotation_schemes`` list (YAML).

Carried over: ``radio`` and ``select`` (one label), ``multiselect`` (several labels),
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

IGNORED_KEYS = {"sequential_key_binding", "label_requirement", "horizontal", "displaying_score"}


def _labels(scheme: dict[str, Any], losses: list[str]) -> list[str]:
    out = []
    for lab in scheme.get("labels") or []:
        if isinstance(lab, dict):
            out.append(str(lab.get("name", "")))
            extra = sorted(set(lab) - {"name"})
            if extra:
                losses.append(
                    f"scheme {scheme.get('name')!r}, label {lab.get('name')!r}: "
                    f"{', '.join(extra)} not carried over"
                )
        else:
            out.append(str(lab))
    return out


def _question(scheme: dict[str, Any], text_field: str, losses: list[str]) -> dict | None:
    name = str(scheme.get("name", ""))
    kind = scheme.get("annotation_type")
    q: dict[str, Any] = {"name": name, "prompt": str(scheme.get("description") or name)}
    if kind in ("radio", "select"):
        q |= {"type": "single", "labels": _labels(scheme, losses)}
    elif kind == "multiselect":
        q |= {"type": "multi", "labels": _labels(scheme, losses)}
    elif kind == "likert":
        size = int(scheme.get("size", 5))
        words = [str(i) for i in range(1, size + 1)]
        words[0] = f"1 · {scheme.get('min_label', '1')}"
        words[-1] = f"{size} · {scheme.get('max_label', size)}"
        q |= {"type": "likert", "labels": words}
        if size > 2:
            losses.append(f"scheme {name!r}: likert levels 2..{size - 1} are named by number")
    elif kind == "text":
        q |= {"type": "text"}
    elif kind in ("number", "slider"):
        lo = scheme.get("min_value", scheme.get("min", 0))
        hi = scheme.get("max_value", scheme.get("max", 100 if kind == "slider" else 1))
        q |= {"type": "score", "min": float(lo), "max": float(hi)}
    elif kind == "span":
        q |= {"type": "spans", "field": text_field, "labels": _labels(scheme, losses)}
    else:
        losses.append(f"scheme {name!r}: annotation type {kind!r} has no counterpart; left out")
        return None
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
