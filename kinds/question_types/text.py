"""Free text: the stripped text. No agreement coefficient; only how much was written."""

from __future__ import annotations

from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import FormField, QuestionType, no_labels


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    no_labels(q, where, "text")
    return {}


def _validate(spec: Any, value: Any, item_fields: Any, draft: bool) -> str:
    text = str(value).strip()
    if not text:
        raise ValidationError("value is empty")
    return text


TEXT = register_question_type(
    QuestionType(
        name="text",
        field_type=FieldType.TEXT,
        order=60,
        title="free text",
        answer_shape="the text, stripped",
        parse=_parse,
        validate=_validate,
        answer_text=lambda spec, value, item_fields: str(value),
        level=Level.NOMINAL,
        structured=True,
        form=(FormField("note", label="Answered in a text box."),),
        control="text",
        label_studio=("TextArea",),
        from_label_studio=lambda tag, fields, losses: {},
        potato=("text",),
        from_potato=lambda scheme, text_field, losses: {},
    )
)
