"""Annotator quality of one project: per annotator and field, against gold and the
others (the CLI, the Quality view and workbench_api.quality show it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from study_inputs.gold import gold_answers
from study_inputs.labels import field_labels
from study_inputs.references import aggregable_fields, nominal_field, ordinal_fields

if TYPE_CHECKING:
    from annotation_store import Store

#: How the ordinal quality figures are made, said beside them.
ORDINAL_METHOD = (
    "each annotator against the mean of the other annotators' ratings of the same items: "
    "Pearson r, mean absolute difference and bias (own - others), leave one out"
)


def annotator_table(store: Store, project: str, field: str | None = None) -> dict[str, Any]:
    """Per annotator and nominal field: labels, gold accuracy, leave-one-out majority
    agreement, Dawid-Skene and MACE competence, and whether they are excluded (their
    figures are computed with everyone, so an excluded annotator can be judged too)."""
    from agreement.annotator_quality import annotator_quality
    from agreement.ordinal_quality import ordinal_quality

    info = store.project(project)
    ordered = ordinal_fields(info)
    if field in ordered:
        fields, ordered = [], [field]
    else:
        fields = [nominal_field(store, project, field)[1]] if field else aggregable_fields(info)
        ordered = [] if field else ordered
    items = store.items(project)
    excluded = store.excluded_annotators(project)
    out: dict[str, Any] = {"project": project, "fields": {}}
    if ordered:
        out["ordinal"] = {}
    for name in ordered:
        rows = []
        for q in ordinal_quality(field_labels(store, project, name, True)):
            row = q.to_dict()
            row["excluded"] = [
                {"source": r.source, "reason": r.reason} for r in excluded.get(q.annotator, [])
            ]
            rows.append(row)
        out["ordinal"][name] = {"method": ORDINAL_METHOD, "annotators": rows}
    for name in fields:
        gold = gold_answers(store, project, items, name)
        rows = []
        for q in annotator_quality(field_labels(store, project, name, True), gold):
            row = q.to_dict()
            row["excluded"] = [
                {"source": r.source, "reason": r.reason} for r in excluded.get(q.annotator, [])
            ]
            rows.append(row)
        out["fields"][name] = {"n_gold_items": len(gold), "annotators": rows}
    return out
