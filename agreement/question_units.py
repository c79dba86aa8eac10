"""The ratings of a structured question: one hashable value per answer, plus context.

Multi-label sets and span lists become JSON text (identical answers, identical values);
a pairwise answer becomes its choice (an output field or ``tie``: the order it was shown
in does not matter). The context carries the declared labels, each item's systems
(pairwise) and each item's text length (spans) for the statistics that need them.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from kinds import FieldType, HumanField

STRUCTURED = (FieldType.MULTI_LABEL, FieldType.TEXT, FieldType.PAIRWISE, FieldType.SPANS)


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _item_fields(items: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(i): f or {} for i, f in zip(items["item_id"], items["fields"], strict=False)}


def question_units(
    f: HumanField, labels: pd.DataFrame, items: pd.DataFrame
) -> tuple[pd.DataFrame, dict[str, Any], dict[str, Any]]:
    """(labels with hashable values, Ratings.from_long arguments, context)."""
    values = labels["value"].map(_decoded)
    context: dict[str, Any] = {}
    if f.type is FieldType.PAIRWISE:
        values = values.map(lambda v: v.get("choice") if isinstance(v, dict) else None)
        context["outputs"] = list(f.outputs)
        if f.systems:
            fields = _item_fields(items)
            context["systems"] = {
                i: {o: fv.get(s, o) for o, s in zip(f.outputs, f.systems, strict=True)}
                for i, fv in fields.items()
            }
        spec = {"numeric": False, "domain": (*f.outputs, "tie")}
    elif f.type is FieldType.TEXT:
        spec = {"numeric": False, "domain": None}
    else:
        values = values.map(lambda v: json.dumps(v, sort_keys=True))
        context["labels"] = list(f.values)
        if f.type is FieldType.SPANS and f.source_field:
            context["lengths"] = {
                i: len(str(fv.get(f.source_field, ""))) for i, fv in _item_fields(items).items()
            }
        spec = {"numeric": False, "domain": None}
    return labels.assign(value=values), spec, context
