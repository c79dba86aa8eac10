"""Actionability (FinGrAct): how far an explanation detects, corrects and sources errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kinds.base import DerivedScore, FieldType, HumanField, ItemField, TaskKind
from kinds.registry import register_kind

GUIDELINE = """\
**Task.** You see a claim, trusted evidence, the verdict a system gave, and the system's
explanation. Rate how *actionable* the explanation is: does it point at what is wrong in
the claim, fix it, and back the fix with sources? Count the factual errors in the claim
yourself first, by comparing it with the evidence.

1. **Errors detected (0-2).** 0: the explanation names none of the claim's errors;
   1: it names some of them; 2: it names all of them.
2. **Errors corrected (0-2).** 0: none of the errors is corrected faithfully to the
   evidence; 1: some are; 2: all are.
3. **Sources (0-3).** 0: no reference or link; 1: a reference is given and the link works;
   2: it is also relevant to the evidence; 3: it is relevant *and* its content supports the
   correction. Open the link before you score 2 or 3.

*Example.* Claim "Kilimanjaro is in Kenya and is an active volcano"; evidence: the
dormant volcano Kilimanjaro stands in northern Tanzania; explanation "Kilimanjaro is in
Tanzania, not Kenya", linking to a working page about Mount Kenya. Detected 1 (the
country, not "active"), corrected 1 (Tanzania given; dormant never said), sources 1 (the
link works but is about another mountain).
"""

DETECT_LEVELS = {0: "no error named", 1: "some errors named", 2: "all errors named"}
CORRECT_LEVELS = {0: "nothing corrected", 1: "some errors corrected", 2: "all corrected"}
SOURCE_LEVELS = {
    0: "no reference",
    1: "reference given, link works",
    2: "reference relevant to the evidence",
    3: "relevant and supports the correction",
}
RUBRIC_FIELDS = ("errors_detected", "errors_corrected", "sources")
RUBRIC_MAX = 7  # 2 + 2 + 3


def _human_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    return (
        HumanField(
            "errors_detected",
            FieldType.ORDINAL,
            "How many of the claim's errors does the explanation point out?",
            values=(0, 1, 2),
            level_descriptions=DETECT_LEVELS,
        ),
        HumanField(
            "errors_corrected",
            FieldType.ORDINAL,
            "How many of the claim's errors does it correct faithfully?",
            values=(0, 1, 2),
            level_descriptions=CORRECT_LEVELS,
        ),
        HumanField(
            "sources",
            FieldType.ORDINAL,
            "Are the references correct, relevant and supporting?",
            values=(0, 1, 2, 3),
            level_descriptions=SOURCE_LEVELS,
        ),
    )


def derive(labels: Mapping[str, Any], item: Mapping[str, Any]) -> dict[str, float | None]:
    """Actionability on a 0-5 scale: (detected + corrected + sources) x 5/7.

    Undefined (None) until all three rubric questions are answered.
    """
    if any(labels.get(name) is None for name in RUBRIC_FIELDS):
        return {"actionability": None}
    total = sum(float(labels[name]) for name in RUBRIC_FIELDS)
    return {"actionability": total * 5 / RUBRIC_MAX}


def derive_columns(cols: Any) -> dict[str, Any]:
    """:func:`derive` for every unit at once (``cols``: kinds.columns.LabelColumns)."""
    import numpy as np

    from kinds.columns import floats

    total = np.zeros(cols.n)  # derive: sum() starts from int 0, then adds float(label)
    defined = np.ones(cols.n, dtype=bool)
    for name in RUBRIC_FIELDS:
        v = floats(cols.column(name))
        defined &= ~np.isnan(v)
        total = total + v
    return {"actionability": np.where(defined, total * 5 / RUBRIC_MAX, np.nan)}


ACTIONABILITY = register_kind(
    TaskKind(
        name="actionability",
        title="Actionability (FinGrAct)",
        description="Claim, evidence, verdict and explanation, rated on error detection, "
        "correction and sources.",
        item_fields=(
            ItemField("claim", description="the claim being fact-checked"),
            ItemField("evidence", description="trusted evidence about the claim"),
            ItemField("label", description="the verdict the system gave"),
            ItemField("explanation", description="the system's explanation (may hold links)"),
            ItemField("generator", required=False, hidden=True, description="model that wrote it"),
        ),
        human_fields_fn=_human_fields,
        derived_scores=(
            DerivedScore("actionability", "(detected + corrected + sources) x 5/7", 0, 5),
        ),
        derive_fn=derive,
        guideline=GUIDELINE,
        derive_columns_fn=derive_columns,
    )
)
