"""The ratings of a structured question: hashable values per agreement unit, plus context.

A question type with a structured answer says how agreement sees it
(:attr:`~kinds.question_type.QuestionType.units`): multi-label sets and span lists become
JSON text (identical answers, identical values), a pairwise answer its choice (the order
it was shown in does not matter); a type may also split one answer into several units
(``item#part``). The context its measures need (declared labels, each item's systems or
text length) comes from the type as well.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from kinds import HumanField
from kinds.question_type import QuestionType


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
    qt: QuestionType, f: HumanField, labels: pd.DataFrame, items: pd.DataFrame
) -> tuple[pd.DataFrame, dict[str, Any], dict[str, Any]]:
    """(labels with hashable values, one row per unit; Ratings.from_long arguments;
    context)."""
    values = labels["value"].map(_decoded).map(lambda v: qt.units(f, v))
    split = values.map(len) != 1
    if split.any() or any(v[0][0] for v in values):
        rows = labels.assign(_units=values).explode("_units")
        rows = rows[rows["_units"].notna()]
        unit_ids = [f"{i}{u[0]}" for i, u in zip(rows["item_id"], rows["_units"], strict=True)]
        out = rows.assign(item_id=unit_ids, value=[u[1] for u in rows["_units"]])
        out = out.drop(columns="_units")
    else:
        out = labels.assign(value=values.map(lambda v: v[0][1]))
    spec = {
        "numeric": qt.numeric or qt.numeric_units,
        "domain": qt.domain(f) if qt.domain else None,
    }
    return out, spec, qt.agreement_context(f, _item_fields(items))
