"""Free text: the stripped text. No agreement coefficient; only how much was written."""

from __future__ import annotations

from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import FormField, QuestionType, no_labels, potato_chosen


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    no_labels(q, where, "text")
    return {}


def _validate(spec: Any, value: Any, item_fields: Any, draft: bool) -> str:
    text = str(value).strip()
    if not text:
        raise ValidationError("value is empty")
    return text


def _from_potato_labels(spec: Any, labels: Any) -> Any:
    """The text of Potato's text box (whatever the box is called)."""
    potato_chosen(labels)  # a non-empty object, or the one-line error
    if "text_box" in labels:
        return labels["text_box"]
    if len(labels) != 1:
        raise ValueError(f"expected one text box, found {len(labels)}")
    return next(iter(labels.values()))


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
        potato_answer=_from_potato_labels,
    )
)
