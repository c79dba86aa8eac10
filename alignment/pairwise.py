"""The alignment table of a declared kind's pairwise question: pairwise judges asked in
both orders, against the people's choices.

A version's plain run asks (A, B); its swap probe run (``cli.py evaluate ... --probe
swap``) asks (B, A) and stores each verdict by content (see
:func:`evaluators.judges.probes.by_content`). Each row carries MT-Bench's figures
(:mod:`agreement.pairwise_judge`): position consistency and bias, and agreement of the
conservative verdict (the plain verdict alone while there is no swap run) with each
person's choice, with and without ties, each with n and a Wilson interval.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pandas as pd

from agreement.pairwise_judge import (
    agreement_with_people,
    conservative_verdicts,
    position_consistency,
)
from alignment.categorical import judge_labels, load_categorical
from alignment.probes import swap_partner
from alignment.row_head import row_head
from kinds import FieldType

if TYPE_CHECKING:
    from annotation_store import Store


def choice_of(value: Any) -> str | None:
    """A stored pairwise answer's choice (an object, its JSON text, or the bare choice)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        choice = value.get("choice")
        return str(choice) if choice is not None else None
    return None


def _votes(annotations: pd.DataFrame, field: str, excluded: set[str]) -> list[tuple[str, str]]:
    rows = annotations.loc[annotations["field"] == field, ["item_id", "value"]]
    out = []
    for item, value in zip(rows["item_id"], rows["value"], strict=True):
        choice = choice_of(value)
        if choice is not None and item not in excluded:
            out.append((str(item), choice))
    return out


def pairwise_table(store: Store, project: str, field: str | None) -> dict[str, Any] | None:
    """The alignment document of a pairwise question (None when the kind has none with
    two outputs, or no judge answered it)."""
    inputs, versions, results = load_categorical(store, project)
    questions = [
        q
        for q in inputs.kind.human_fields(inputs.settings)
        if q.type is FieldType.PAIRWISE and len(q.outputs) == 2
    ]
    answered = [
        q
        for q in questions
        if any(judge_labels(r, q.name, set())["labels"] for r in results.values() if not r.empty)
    ]
    chosen = next((q for q in answered if field in (None, q.name)), None)
    if chosen is None:
        return None
    first, second = chosen.outputs
    rows = []
    for v in versions:
        r = results[v.signature]
        if v.probe is not None or v.swapped or r.empty:
            continue
        partner = swap_partner(v, versions)
        excluded = set(v.excluded) | (set(partner.excluded) if partner else set())
        ab = judge_labels(r, chosen.name, excluded)["labels"]
        if not ab:
            continue
        ba = (
            judge_labels(results[partner.signature], chosen.name, excluded)["labels"]
            if partner
            else {}
        )
        verdicts = conservative_verdicts(ab, ba) if partner else dict(ab)
        votes = _votes(inputs.annotations, chosen.name, excluded)
        agreement = agreement_with_people(verdicts, votes)
        kept = r[~r["item_id"].isin(excluded)]
        rows.append(
            {
                **row_head(v, kept),
                "n": agreement["with_ties"]["n"],
                "headline": {
                    "name": "agreement_with_ties",
                    **agreement["with_ties"],
                },
                "agreement": agreement,
                "verdict": "conservative (inconsistent pairs count as a tie)"
                if partner
                else "plain run only (no swap probe run yet)",
                "position": {
                    "partner": partner.label,
                    **position_consistency(ab, ba, first, second),
                }
                if partner
                else {"n": 0, "reason": "no swap probe run (cli.py evaluate ... --probe swap)"},
            }
        )
    return {
        "project": project,
        "kind": inputs.kind.name,
        "field": chosen.name,
        "field_type": FieldType.PAIRWISE.value,
        "fields": [q.name for q in answered],
        "outputs": [first, second],
        "headline": "agreement_with_ties",
        "versions": rows,
        "meta": {
            "ci": "95% Wilson score interval",
            "definition": "MT-Bench (Zheng et al. 2023): verdicts by content in both orders",
            "n_items_total": inputs.meta["n_items_total"],
            "n_gold_items": inputs.meta["n_gold_items"],
        },
    }
