"""Several labels of a set: the chosen labels in declared order, each once (``[]`` =
none applies). Agreement sees each answer as its whole set (exact-set alpha); MASI alpha
and the per-label alpha are declared for it in :mod:`agreement.multilabel`."""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    FormField,
    QuestionType,
    choice_labels,
    decoded,
    label_question,
    labels,
    potato_chosen,
    scheme_labels,
)

STARTER = ["first label", "second label"]


def chosen(spec: Any, value: Any) -> list[str]:
    """The canonical set: declared labels in their order; unknown labels are refused."""
    value = decoded(value, "a multi-label answer")
    if not isinstance(value, list | tuple):
        raise ValidationError("a multi-label answer must be a list of labels")
    picked = {str(v).strip() for v in value}
    unknown = sorted(picked - set(spec.values))
    if unknown:
        raise ValidationError(f"{unknown[0]!r} is not one of {list(spec.values)}")
    return [v for v in spec.values if v in picked]


def _from_potato_labels(spec: Any, labels: Any) -> Any:
    """Potato's multiselect keeps each ticked label as ``{label: label}``."""
    if isinstance(labels, dict) and "text_box" in labels:
        return labels["text_box"]
    return potato_chosen(labels)


def _units(spec: Any, value: Any) -> list[tuple[str, Hashable]]:
    return [("", json.dumps(value, sort_keys=True))]


def _argilla_response(spec: Any, value: Any, losses: list[str]) -> list[str] | None:
    """The chosen labels; "none applies" (``[]``) is left out, as an Argilla multi-label
    answer names at least one label."""
    if not value:
        losses.append("'none applies' (an Argilla multi-label answer names at least one label)")
        return None
    return list(value)


MULTI_LABEL = register_question_type(
    QuestionType(
        name="multi",
        field_type=FieldType.MULTI_LABEL,
        order=30,
        title="several labels",
        answer_shape="a list of the chosen labels, in declared order ([] = none applies)",
        keys=("labels",),
        parse=lambda q, where, fields: {"values": labels(q, where)},
        validate=lambda spec, value, item_fields, draft: chosen(spec, value),
        condition_key=lambda spec, answer: chosen(spec, [answer])[0],
        answer_text=lambda spec, value, item_fields: (
            ", ".join(map(str, value)) or "none" if isinstance(value, list) else str(value)
        ),
        level=Level.NOMINAL,
        agreement_levels=(Level.NOMINAL,),  # exact sets; MASI alpha is declared apart
        structured=True,
        units=_units,
        agreement_context=lambda spec, fields_by_item: {"labels": list(spec.values)},
        form=(FormField("labels", "labels", "Labels, one per line"),),
        starter=lambda fields: {"labels": list(STARTER)},
        answer_options=lambda q: list(q.get("labels") or []),
        control="multi_label",
        argilla_question=lambda spec: label_question(spec.values, kind="multi_label_selection"),
        argilla_response=_argilla_response,
        label_studio=("Choices",),
        from_label_studio=lambda tag, fields, losses: (
            {"labels": choice_labels(tag)} if tag.get("choice") == "multiple" else None
        ),
        potato=("multiselect",),
        from_potato=lambda scheme, text_field, losses: {"labels": scheme_labels(scheme, losses)},
        potato_labels=lambda spec, value: {str(v): str(v) for v in chosen(spec, value)},
        potato_answer=_from_potato_labels,
    )
)
