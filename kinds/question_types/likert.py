"""Likert: a word per level, stored as the level's whole number."""

from __future__ import annotations

import math
from typing import Any

from kinds.base import as_number
from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    DeclarationError,
    FormField,
    QuestionType,
    label_question,
    labels,
    level_words,
    number_result,
    text_area_control,
    text_question,
    text_response,
    validated,
)

STARTER = ["poor", "fair", "good", "very good", "excellent"]


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    words = labels(q, where)
    levels = q.get("levels", list(range(1, len(words) + 1)))
    if (
        not isinstance(levels, list)
        or len(levels) != len(words)
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in levels)
        or len(set(levels)) != len(levels)
    ):
        raise DeclarationError(
            f"{where}.levels", "distinct whole numbers, one per label, are needed"
        )
    return {"values": tuple(levels), "level_descriptions": dict(zip(levels, words, strict=True))}


def _validate(spec: Any, value: Any, item_fields: Any, draft: bool) -> Any:
    number = as_number(value)
    for allowed in spec.values:
        if math.isclose(number, float(allowed), abs_tol=1e-9):
            return allowed
    raise ValidationError(f"{value!r} is not one of {list(spec.values)}")


def _from_label_studio(tag: Any, fields: Any, losses: list[str]) -> dict[str, Any]:
    top = int(tag.get("maxRating", "5"))
    losses.append(
        f"<Rating name={tag.get('name') or ''!r}>: its levels have no words; named 1..{top}"
    )
    return {"labels": [str(i) for i in range(1, top + 1)]}


def _from_potato(scheme: Any, text_field: str, losses: list[str]) -> dict[str, Any]:
    size = int(scheme.get("size", 5))
    words = [str(i) for i in range(1, size + 1)]
    words[0] = f"1 · {scheme.get('min_label', '1')}"
    words[-1] = f"{size} · {scheme.get('max_label', size)}"
    if size > 2:
        losses.append(
            f"scheme {str(scheme.get('name', ''))!r}: likert levels 2..{size - 1} are named by number"
        )
    return {"labels": words}


def _rating_control(spec: Any, name: str) -> list[str]:
    if not spec.values:
        return text_area_control(spec, name)
    top = max(int(v) for v in spec.values)
    return [f'  <Rating name={name} toName="item" maxRating="{top}"/>']


def _rates(spec: Any) -> bool:
    """Whether Argilla's rating question holds the levels (whole numbers 0 to 10)."""
    return all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10 for v in spec.values)


def _rating_question(spec: Any) -> tuple[str, dict[str, Any]]:
    """A rating question over the levels; levels a rating cannot hold (0.2 steps, above
    10) become a label question, each level shown with its words."""
    if not spec.values:
        return text_question(spec)
    if _rates(spec):
        return "rating", {"options": [{"value": v} for v in spec.values]}
    return label_question(
        [str(v) for v in spec.values], [level_words(spec, v) for v in spec.values]
    )


def _rating_response(spec: Any, value: Any, losses: list[str]) -> Any:
    """The level as the rating (a whole number) or as its label (the level's text)."""
    if not spec.values:
        return text_response(spec, value, losses)
    level = _validate(spec, value, None, False)
    return level if _rates(spec) else str(level)


def _options(question: Any) -> list[Any]:
    words = list(question.get("labels") or [])
    return list(question.get("levels") or range(1, len(words) + 1))


LIKERT = register_question_type(
    QuestionType(
        name="likert",
        field_type=FieldType.ORDINAL,
        order=40,
        title="Likert (a label per level)",
        answer_shape="the level's whole number",
        keys=("labels", "levels"),
        parse=_parse,
        validate=_validate,
        condition_key=validated,
        answer_text=lambda spec, value, item_fields: level_words(spec, value),
        level=Level.ORDINAL,
        agreement_levels=(Level.NOMINAL, Level.ORDINAL, Level.INTERVAL),
        numeric=True,
        categories=True,
        domain=lambda spec: spec.values or None,
        form=(
            FormField("likert", "likert", "Levels, one per line as LEVEL: label (e.g. 1: poor)"),
        ),
        starter=lambda fields: {"labels": list(STARTER)},
        answer_options=_options,
        control="likert",
        label_studio_result=number_result,
        label_studio_control=_rating_control,
        potato_labels=lambda spec, value: {str(value): str(value)},
        argilla_question=_rating_question,
        argilla_response=_rating_response,
        label_studio=("Rating",),
        from_label_studio=_from_label_studio,
        potato=("likert",),
        from_potato=_from_potato,
    )
)
