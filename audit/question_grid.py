"""The question-by-question grid of one item: every question, each annotator's answer
in words, and whether they all gave the same one (like the fact grid, for any kind)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from annotation_store.label_frames import majority
from kinds import FieldType, HumanField, TaskKind


def answer_text(spec: HumanField, value: Any, item_fields: Mapping[str, Any]) -> str:
    """An answer as a reader would say it (labels, choices with strength, marked text):
    the question type's words for it."""
    if value is None:
        return ""
    return spec.question_type.answer_text(spec, value, item_fields)


def question_grid(
    kind: TaskKind,
    settings: Mapping[str, Any] | None,
    people: Mapping[str, Mapping[str, Any]],
    item_fields: Mapping[str, Any],
) -> pd.DataFrame:
    """question x {type, each annotator, agree}: ``agree`` is yes when everyone who
    answered gave the same answer, no when they differ, empty with fewer than two."""
    rows = []
    for spec in kind.human_fields(settings):
        if spec.type is FieldType.FACT_LABELS:
            continue  # the fact grid shows these fact by fact
        row: dict[str, Any] = {"question": spec.name, "type": str(spec.type)}
        given = []
        for who in sorted(people):
            value = people[who].get(spec.name)
            row[who] = answer_text(spec, value, item_fields)
            if value is not None:
                given.append(value)
        found = majority(given) if len(given) >= 2 else None
        row["agree"] = "" if len(given) < 2 else "yes" if found and found[1] else "no"
        rows.append(row)
    return pd.DataFrame(rows)
