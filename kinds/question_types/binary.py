"""Binary: no / yes, stored as 0 / 1 (the two labels are the words shown)."""

from __future__ import annotations

from typing import Any

from kinds.base import parse_binary
from kinds.field_types import FieldType, Level
from kinds.question_registry import register_question_type
from kinds.question_type import (
    DeclarationError,
    FormField,
    QuestionType,
    choices_control,
    label_question,
    labels,
    level_words,
    validated,
)


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    words = labels(q, where) if "labels" in q else ("no", "yes")
    if len(words) != 2:
        raise DeclarationError(f"{where}.labels", "a binary question has two labels: no, yes")
    return {"values": (0, 1), "level_descriptions": {0: words[0], 1: words[1]}}


def _fit(question: dict[str, Any]) -> dict[str, Any]:
    if len(question.get("labels") or []) != 2:
        question.pop("labels", None)
    return question


def _options(question: Any) -> list[Any]:
    words = list(question.get("labels") or [])
    return words if len(words) == 2 else ["no", "yes"]


def _argilla_question(spec: Any) -> tuple[str, dict[str, Any]]:
    """A label question: "yes" / "no" as the answers, the declared words shown."""
    words = spec.level_descriptions or {}
    return label_question(("yes", "no"), (words.get(1, "yes"), words.get(0, "no")))


BINARY = register_question_type(
    QuestionType(
        name="binary",
        field_type=FieldType.BINARY,
        order=10,
        title="binary (yes / no)",
        answer_shape="0 or 1",
        keys=("labels",),
        parse=_parse,
        validate=lambda spec, value, item_fields, draft: parse_binary(value),
        condition_key=validated,
        answer_text=lambda spec, value, item_fields: level_words(spec, value, with_value=False),
        level=Level.NOMINAL,
        agreement_levels=(Level.NOMINAL,),
        numeric=True,
        categories=True,
        domain=lambda spec: spec.values or None,
        form=(FormField("labels", "labels", "Labels: no, then yes (one per line)", ["no", "yes"]),),
        fit=_fit,
        answer_options=_options,
        control="binary",
        label_studio_result=lambda spec, value: {
            "type": "choices",
            "value": {"choices": ["yes" if value else "no"]},
        },
        label_studio_control=lambda spec, name: choices_control(name, ("yes", "no")),
        potato_labels=lambda spec, value: {"yes" if value else "no": "yes" if value else "no"},
        argilla_question=_argilla_question,
        argilla_response=lambda spec, value, losses: "yes" if value else "no",
    )
)
