"""Spans: labelled character ranges of one item text field.

Stored as ``[{"start", "end", "label"}]`` sorted, characters ``start <= c < end`` of the
question's source field. Agreement sees each answer as its whole list; span F1 and the
character-level alpha are declared for it in :mod:`agreement.spans`.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    DeclarationError,
    FormField,
    QuestionType,
    decoded,
    label_question,
    labels,
    scheme_labels,
)

TEXT_ROLES = ("text", "markdown", "code")


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    source = q.get("field")
    if source not in fields or fields[source].role not in TEXT_ROLES:
        raise DeclarationError(
            f"{where}.field", f"{source!r} is not a declared text, markdown or code field"
        )
    return {"values": labels(q, where, needed=1), "source_field": source}


def _validate(
    spec: Any, value: Any, item_fields: Mapping[str, Any] | None, draft: bool
) -> list[dict[str, Any]]:
    value = decoded(value, "spans")
    if not isinstance(value, list | tuple):
        raise ValidationError("spans must be a list of {start, end, label}")
    size = None
    if item_fields is not None and spec.source_field in item_fields:
        size = len(str(item_fields[spec.source_field]))
    out = []
    for span in value:
        if not isinstance(span, Mapping):
            raise ValidationError("each span must be an object {start, end, label}")
        try:
            start, end = int(span["start"]), int(span["end"])
        except (KeyError, TypeError, ValueError):
            raise ValidationError("each span needs whole-number 'start' and 'end'") from None
        label = str(span.get("label", "")).strip()
        if label not in spec.values:
            raise ValidationError(f"span label {label!r} is not one of {list(spec.values)}")
        if not 0 <= start < end or (size is not None and end > size):
            raise ValidationError(
                f"span {start}-{end} is not a range inside {spec.source_field!r}"
                + (f" ({size} characters)" if size is not None else "")
            )
        out.append({"start": start, "end": end, "label": label})
    unique = {(s["start"], s["end"], s["label"]): s for s in out}
    return [unique[k] for k in sorted(unique)]


def _answer_text(spec: Any, value: Any, item_fields: Mapping[str, Any]) -> str:
    if not isinstance(value, list):
        return str(value)
    text = str(item_fields.get(spec.source_field or "", ""))
    return "; ".join(f"{s['label']}: {text[s['start'] : s['end']]!r}" for s in value) or "none"


def _units(spec: Any, value: Any) -> list[tuple[str, Hashable]]:
    return [("", json.dumps(value, sort_keys=True))]


def _context(spec: Any, fields_by_item: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    context: dict[str, Any] = {"labels": list(spec.values)}
    if spec.source_field:
        context["lengths"] = {
            i: len(str(fv.get(spec.source_field, ""))) for i, fv in fields_by_item.items()
        }
    return context


def _potato_spans(spec: Any, value: Any) -> list[dict[str, Any]]:
    """Potato's span objects (its ``name`` is the label)."""
    return [
        {"name": s["label"], "title": s["label"], "start": s["start"], "end": s["end"]}
        for s in _validate(spec, value, None, False)
    ]


def _from_potato_spans(spec: Any, stored: Any) -> Any:
    """Spans from Potato's span objects (``name``, ``start``, ``end``), from an
    ``error_span`` scheme's ``{"errors": [{start, end, type ...}]}`` (the type is the
    label) or from a text box holding the answer as JSON."""
    if isinstance(stored, dict):
        text = stored.get("text_box")
        if text is None and len(stored) == 1:
            raw = next(iter(stored.values()))
            try:
                data = json.loads(raw) if isinstance(raw, str) and raw.strip()[:1] == "{" else raw
            except json.JSONDecodeError:
                raise ValueError("an error_span answer must be JSON") from None
            if isinstance(data, dict) and isinstance(data.get("errors"), list):
                return [
                    {"start": e.get("start"), "end": e.get("end"), "label": e.get("type")}
                    for e in data["errors"]
                    if isinstance(e, dict)
                ]
        if text is None:
            raise ValueError("expected Potato span objects or an error_span answer")
        return text
    if not isinstance(stored, list):
        raise ValueError("expected a list of Potato span objects")
    out = []
    for span in stored:
        if not isinstance(span, dict):
            raise ValueError("each Potato span must be an object")
        out.append({"start": span.get("start"), "end": span.get("end"), "label": span.get("name")})
    return out


def _from_potato(scheme: Any, text_field: str, losses: list[str]) -> dict[str, Any]:
    """Potato's ``span`` scheme, or its ``error_span`` scheme: the error types are the
    labels (their subtypes and the severities per span have no counterpart)."""
    if scheme.get("annotation_type") != "error_span":
        return {"field": text_field, "labels": scheme_labels(scheme, losses)}
    name = scheme.get("name")
    types = [t.get("name") if isinstance(t, dict) else t for t in scheme.get("error_types") or []]
    if any(isinstance(t, dict) and t.get("subtypes") for t in scheme.get("error_types") or []):
        losses.append(f"scheme {name!r}: error subtypes not carried over (their type is)")
    losses.append(
        f"scheme {name!r}: severities and the quality score not carried over "
        "(a span keeps its error type)"
    )
    return {"field": str(scheme.get("source_field") or text_field), "labels": types}


def _starter(fields: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    texts = [f.get("name") for f in fields if f.get("role", "text") in TEXT_ROLES]
    return {"field": texts[0] if texts else "", "labels": ["error"]}


def _from_label_studio(tag: Any, fields: Any, losses: list[str]) -> dict[str, Any]:
    targets = [t.strip() for t in (tag.get("toName") or "").split(",") if t.strip()]
    source = targets[0] if targets else ""
    return {
        "field": fields.get(source, {}).get("name", source),
        "labels": [lab.get("value") or "" for lab in tag.iter("Label")],
    }


def _argilla_question(spec: Any) -> tuple[str, dict[str, Any]]:
    """A span question on the source field; spans of different labels may overlap."""
    _, settings = label_question(spec.values)
    return "span", {"field": spec.source_field, "allow_overlapping": True, **settings}


SPANS = register_question_type(
    QuestionType(
        name="spans",
        field_type=FieldType.SPANS,
        order=80,
        title="spans of a text field",
        answer_shape='a sorted list of {"start", "end", "label"} character ranges',
        keys=("field", "labels"),
        parse=_parse,
        validate=_validate,
        answer_text=_answer_text,
        level=Level.NOMINAL,
        structured=True,  # span F1 and character alpha are declared apart
        units=_units,
        agreement_context=_context,
        form=(
            FormField("text_field", "field", "Text field to mark"),
            FormField("labels", "labels", "Span labels, one per line"),
        ),
        starter=_starter,
        control="spans",
        argilla_question=_argilla_question,
        argilla_response=lambda spec, value, losses: [
            {"label": s["label"], "start": s["start"], "end": s["end"]} for s in value
        ],
        label_studio=("Labels",),
        from_label_studio=_from_label_studio,
        potato=("span", "error_span"),
        from_potato=_from_potato,
        potato_labels=lambda spec, value: {},
        potato_spans=_potato_spans,
        potato_answer=_from_potato_spans,
    )
)
