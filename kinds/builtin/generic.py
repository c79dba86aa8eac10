"""Generic kinds: binary, categorical, Likert and score labels on a text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kinds.base import FieldType, HumanField, ItemField, TaskKind, ValidationError
from kinds.registry import register_kind

TEXT_FIELDS = (
    ItemField("text", description="the text to judge; other columns are kept as context"),
    ItemField("generator", required=False, hidden=True, description="model that produced the text"),
)


def _binary_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    return (HumanField("label", FieldType.BINARY, "Yes (1) or no (0)", values=(0, 1)),)


def _categorical_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    labels = tuple(str(v) for v in settings.get("labels", ()))
    return (HumanField("label", FieldType.CATEGORICAL, "One label", values=labels),)


def _check_categorical(settings: Mapping[str, Any]) -> None:
    labels = settings.get("labels")
    if not isinstance(labels, list) or len(labels) < 2:
        raise ValidationError('categorical settings need "labels": a list of at least 2')
    if len({str(v) for v in labels}) != len(labels):
        raise ValidationError("categorical labels must be distinct")


def _likert_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    lo, hi = int(settings["min"]), int(settings["max"])
    return (
        HumanField(
            "label",
            FieldType.ORDINAL,
            f"A level from {lo} to {hi}",
            values=tuple(range(lo, hi + 1)),
        ),
    )


def _check_likert(settings: Mapping[str, Any]) -> None:
    lo, hi = settings.get("min"), settings.get("max")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)) or lo >= hi:
        raise ValidationError('likert settings need whole numbers "min" < "max"')


def _score_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    return (
        HumanField("label", FieldType.INTERVAL, "A score from 0 to 1", minimum=0.0, maximum=1.0),
    )


GENERIC_GUIDELINE = "Read the text and its context, then give your label."

#: The item text against an extra ``reference`` column, scored as ``label``.
TEXT_PAIR = ("text", "reference", "label")

for _name, _title, _fields, _defaults, _check, _pair in (
    ("binary", "Binary label", _binary_fields, {}, None, TEXT_PAIR),
    (
        "categorical",
        "Categorical label",
        _categorical_fields,
        {"labels": ["a", "b"]},
        _check_categorical,
        None,
    ),
    ("likert", "Likert scale", _likert_fields, {"min": 1, "max": 5}, _check_likert, TEXT_PAIR),
    ("score", "Score 0..1", _score_fields, {}, None, TEXT_PAIR),
):
    register_kind(
        TaskKind(
            name=_name,
            title=_title,
            description=f"{_title} on a text, with any extra columns shown as context.",
            item_fields=TEXT_FIELDS,
            human_fields_fn=_fields,
            guideline=GENERIC_GUIDELINE,
            default_settings=_defaults,
            validate_settings_fn=_check,
            text_pair=_pair,
        )
    )
