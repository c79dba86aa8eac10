"""One label of a set (a categorical field)."""

from __future__ import annotations

from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    FormField,
    QuestionType,
    choice_labels,
    choices_control,
    label_question,
    labels,
    level_words,
    scheme_labels,
    validated,
)

STARTER = ["first label", "second label"]


def _validate(spec: Any, value: Any, item_fields: Any, draft: bool) -> str:
    text = str(value).strip()
    if text not in spec.values:
        raise ValidationError(f"{text!r} is not one of {list(spec.values)}")
    return text


def _from_label_studio(tag: Any, fields: Any, losses: list[str]) -> dict[str, Any] | None:
    return None if tag.get("choice") == "multiple" else {"labels": choice_labels(tag)}


SINGLE = register_question_type(
    QuestionType(
        name="single",
        field_type=FieldType.CATEGORICAL,
        order=20,
        title="one label",
        answer_shape="one of the labels (text)",
        keys=("labels",),
        parse=lambda q, where, fields: {"values": labels(q, where)},
        validate=_validate,
        condition_key=validated,
        answer_text=lambda spec, value, item_fields: level_words(spec, value),
        level=Level.NOMINAL,
        agreement_levels=(Level.NOMINAL,),
        categories=True,
        domain=lambda spec: spec.values or None,
        form=(FormField("labels", "labels", "Labels, one per line"),),
        starter=lambda fields: {"labels": list(STARTER)},
        answer_options=lambda q: list(q.get("labels") or []),
        control="single",
        label_studio_result=lambda spec, value: {
            "type": "choices",
            "value": {"choices": [str(value)]},
        },
        label_studio_control=lambda spec, name: choices_control(name, spec.values),
        potato_labels=lambda spec, value: {str(value): str(value)},
        argilla_question=lambda spec: label_question(spec.values),
        argilla_response=lambda spec, value, losses: str(value),
        label_studio=("Choices",),
        from_label_studio=_from_label_studio,
        potato=("radio", "select"),
        from_potato=lambda scheme, text_field, losses: {"labels": scheme_labels(scheme, losses)},
    )
)
