"""Intent match (Bi-Fact): gold vs predicted intent, judged fact by fact in both directions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kinds.base import (
    DerivedScore,
    FieldType,
    HumanField,
    ItemField,
    TaskKind,
    f1,
    share_implied,
)
from kinds.registry import register_kind

GUIDELINE = """\
**Task.** Compare a *gold* intent (what the user really wanted) with a *predicted* intent
(what a model inferred from the user's actions). Both are split into atomic facts: short
statements that each carry one piece of information.

**Gold facts (recall).** For every gold fact, read the *whole predicted intent* and choose
**C** if the prediction states or clearly implies the fact, **M** if it is missing or
contradicted.

**Predicted facts (precision).** For every predicted fact, read the *whole gold intent* and
choose **C** if the gold intent states or clearly implies it, **M** otherwise.

Judge each fact on its own; a paraphrase counts as implied, a more general statement does
not imply a more specific one ("set an alarm" does not imply "at 7am").

**Same task.** Finally answer whether both intents describe the same task (1) or not (0).
"""


def _human_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    return (
        HumanField(
            "match",
            FieldType.BINARY,
            "Do the gold and predicted intents describe the same task?",
            values=(0, 1),
            level_descriptions={0: "different task", 1: "same task"},
        ),
        HumanField(
            "gold_fact_labels",
            FieldType.FACT_LABELS,
            "Per gold fact: C if the prediction implies it, M if not",
            facts_field="gold_facts",
        ),
        HumanField(
            "predicted_fact_labels",
            FieldType.FACT_LABELS,
            "Per predicted fact: C if the gold intent implies it, M if not",
            facts_field="predicted_facts",
        ),
    )


def derive(labels: Mapping[str, Any], item: Mapping[str, Any]) -> dict[str, float | None]:
    """Recall, precision and F1 of one annotator's fact labels.

    recall = share of gold facts labelled C, precision = share of predicted facts labelled
    C. An empty or missing fact list leaves its side undefined (None), and F1 is then
    undefined too; it is not counted as 0 or 1.
    """
    recall = share_implied(labels.get("gold_fact_labels"))
    precision = share_implied(labels.get("predicted_fact_labels"))
    return {"recall": recall, "precision": precision, "f1": f1(precision, recall)}


def derive_columns(cols: Any) -> dict[str, Any]:
    """:func:`derive` for every unit at once (``cols``: kinds.columns.LabelColumns)."""
    from kinds.columns import f1_columns, shares_implied

    recall = shares_implied(cols.column("gold_fact_labels"))
    precision = shares_implied(cols.column("predicted_fact_labels"))
    return {"recall": recall, "precision": precision, "f1": f1_columns(precision, recall)}


INTENT_MATCH = register_kind(
    TaskKind(
        name="intent_match",
        title="Intent match (Bi-Fact)",
        description="Gold vs predicted intent, decomposed into atomic facts and labelled "
        "implied (C) or not (M) in both directions.",
        item_fields=(
            ItemField("gold", description="the gold (reference) intent"),
            ItemField("predicted", description="the predicted intent"),
            ItemField("gold_facts", "list", required=False, description="atomic gold facts"),
            ItemField(
                "predicted_facts", "list", required=False, description="atomic predicted facts"
            ),
            ItemField(
                "generator",
                required=False,
                hidden=True,
                description="model that made the prediction",
            ),
        ),
        human_fields_fn=_human_fields,
        derived_scores=(
            DerivedScore("recall", "share of gold facts implied by the prediction", 0, 1),
            DerivedScore("precision", "share of predicted facts implied by the gold", 0, 1),
            DerivedScore("f1", "harmonic mean of precision and recall", 0, 1),
        ),
        derive_fn=derive,
        guideline=GUIDELINE,
        derive_columns_fn=derive_columns,
        # the pair baselines score the prediction against the gold intent as ``match`` (a
        # similarity; the agreement engine calibrates it against the binary judgment)
        text_pair=("predicted", "gold", "match"),
        swappable=(("gold", "predicted"), ("gold_facts", "predicted_facts")),
    )
)
