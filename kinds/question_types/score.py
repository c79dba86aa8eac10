"""A score on a range (a slider): any number from ``min`` to ``max``."""

from __future__ import annotations

from typing import Any

from kinds.base import as_number
from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    DeclarationError,
    FormField,
    QuestionType,
    number_result,
    one_potato_label,
    validated,
)


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    lo, hi = q.get("min", 0), q.get("max", 1)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lo, hi)):
        raise DeclarationError(f"{where}.min", "min and max must be numbers")
    if lo >= hi:
        raise DeclarationError(f"{where}.max", f"max {hi} must be above min {lo}")
    return {"minimum": float(lo), "maximum": float(hi)}


def _validate(spec: Any, value: Any, item_fields: Any, draft: bool) -> float:
    number = as_number(value)
    if spec.minimum is not None and number < spec.minimum:
        raise ValidationError(f"{number} is below the minimum {spec.minimum}")
    if spec.maximum is not None and number > spec.maximum:
        raise ValidationError(f"{number} is above the maximum {spec.maximum}")
    return number


def _number_control(spec: Any, name: str) -> list[str]:
    bounds = f'min="{spec.minimum}" max="{spec.maximum}"' if spec.minimum is not None else ""
    return [f'  <Number name={name} toName="item" {bounds}/>']


def _number_text(value: Any) -> str:
    """A number as Potato's number box holds it (``3``, not ``3.0``)."""
    number = as_number(value)
    return str(int(number)) if number.is_integer() else repr(number)


def _from_potato_labels(spec: Any, labels: Any) -> Any:
    """Potato's number, slider or text box value (one chosen label otherwise)."""
    for key in ("number", "slider", "text_box"):
        if isinstance(labels, dict) and key in labels:
            return labels[key]
    return one_potato_label(spec, labels)


def _from_potato(scheme: Any, text_field: str, losses: list[str]) -> dict[str, Any]:
    slider = scheme.get("annotation_type") == "slider"
    lo = scheme.get("min_value", scheme.get("min", 0))
    hi = scheme.get("max_value", scheme.get("max", 100 if slider else 1))
    return {"min": float(lo), "max": float(hi)}


SCORE = register_question_type(
    QuestionType(
        name="score",
        field_type=FieldType.INTERVAL,
        order=50,
        title="score on a range (slider)",
        answer_shape="a number from min to max",
        keys=("min", "max"),
        parse=_parse,
        validate=_validate,
        condition_key=validated,
        answer_text=lambda spec, value, item_fields: str(value),
        level=Level.INTERVAL,
        agreement_levels=(Level.INTERVAL, Level.RATIO),
        numeric=True,
        form=(
            FormField("number", "min", "min", 0, row=1),
            FormField("number", "max", "max", 1, row=1),
        ),
        starter=lambda fields: {"min": 0, "max": 10},
        control="score",
        label_studio_result=number_result,
        label_studio_control=_number_control,
        potato_labels=lambda spec, value: {"number": _number_text(value)},
        potato_answer=_from_potato_labels,
        label_studio=("Number",),
        from_label_studio=lambda tag, fields, losses: {
            "min": float(tag.get("min", 0)),
            "max": float(tag.get("max", 1)),
        },
        potato=("number", "slider"),
        from_potato=_from_potato,
    )
)
