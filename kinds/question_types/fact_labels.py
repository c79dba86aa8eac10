"""Fact labels: one ``C`` (implied) or ``M`` (missing) per fact of an item's fact list.

Built-in kinds use it (Bi-Fact); kind files cannot declare it. Agreement counts each
fact as a unit (see :mod:`agreement.document`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kinds.base import FACT_IMPLIED, FACT_NOT_IMPLIED, FACT_UNSET
from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import QuestionType


def validate_fact_labels(
    spec: Any, value: Any, item_fields: Mapping[str, Any] | None, draft: bool
) -> list[str]:
    """The labels upper-cased; ``draft`` allows facts not labelled yet (``?``)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"fact labels must be a JSON list: {exc.msg}") from None
    if not isinstance(value, list):
        raise ValidationError("fact labels must be a list of 'C' / 'M'")
    labels = [str(v).strip().upper() for v in value]
    allowed = (
        (FACT_IMPLIED, FACT_NOT_IMPLIED, FACT_UNSET) if draft else (FACT_IMPLIED, FACT_NOT_IMPLIED)
    )
    bad = [v for v in labels if v not in allowed]
    if bad:
        if bad[0] == FACT_UNSET:
            raise ValidationError("every fact needs a label ('C' or 'M') before submitting")
        raise ValidationError(f"fact labels must be 'C' or 'M', got {bad[0]!r}")
    if item_fields is not None and spec.facts_field:
        facts = item_fields.get(spec.facts_field) or []
        if len(labels) != len(facts):
            raise ValidationError(
                f"{len(labels)} labels for {len(facts)} facts in {spec.facts_field!r}"
            )
    return labels


FACT_LABELS = register_question_type(
    QuestionType(
        name="fact_labels",
        field_type=FieldType.FACT_LABELS,
        order=90,
        title="fact labels (C / M per fact)",
        answer_shape='a list of "C" / "M", one per fact of the item\'s fact list',
        declarable=False,
        validate=validate_fact_labels,
        answer_text=lambda spec, value, item_fields: (
            " ".join(map(str, value)) if isinstance(value, list) else str(value)
        ),
        level=Level.NOMINAL,
        agreement_levels=(Level.NOMINAL,),
        categories=True,
        unit="fact",
        domain=lambda spec: ("C", "M"),
        control="fact_labels",
    )
)
