"""Annotator quality, aggregated labels and the human reference of one project (store ->
agreement; the CLI, the views and workbench_api.quality call these)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from agreement.aggregation import Aggregation
    from annotation_store import ItemRecord, ProjectInfo, Store

#: Human references evaluators can be compared with: the default (the people's mean,
#: majority for binary fields) or aggregated labels on nominal fields.
REFERENCES = ("majority", "dawid_skene", "mace")
#: How the ordinal quality figures are made, said beside them.
ORDINAL_METHOD = (
    "each annotator against the mean of the other annotators' ratings of the same items: "
    "Pearson r, mean absolute difference and bias (own - others), leave one out"
)


def aggregable_fields(info: ProjectInfo) -> list[str]:
    """The project's nominal fields (binary, categorical): the ones aggregation works on."""
    from kinds import FieldType

    nominal = (FieldType.BINARY, FieldType.CATEGORICAL)
    return [f.name for f in info.task_kind.human_fields(info.settings) if f.type in nominal]


def ordinal_fields(info: ProjectInfo) -> list[str]:
    """The project's ordinal and score fields (Likert, rubric levels, scores): annotator
    quality by correlation with the others, references by mean or median."""
    from kinds import FieldType

    ordered = (FieldType.ORDINAL, FieldType.INTERVAL)
    return [f.name for f in info.task_kind.human_fields(info.settings) if f.type in ordered]


def aggregate_ordinal(
    store: Store, project: str, field: str | None = None, method: str = "mean"
) -> tuple[pd.DataFrame, str]:
    """The reference of each item of an ordinal / score field (excluded annotators left
    out): item_id, value (mean or median of its ratings), n; and the field."""
    from agreement.ordinal_quality import ordinal_reference

    fields = ordinal_fields(store.project(project))
    if not fields:
        raise ValueError(f"project {project!r} has no ordinal or score field")
    field = field or fields[0]
    if field not in fields:
        raise ValueError(
            f"{field!r} is not an ordinal or score field; choose one of {', '.join(fields)}"
        )
    return ordinal_reference(_labels(store, project, field, False), method), field


def gold_answers(store: Store, project: str, items: list[ItemRecord], field: str) -> dict[str, Any]:
    """Gold answer per item for ``field``: the store's gold items (``annotation_store.studies.gold``),
    then, for other items, an item field ``gold`` that maps field names to answers (a plain
    ``gold`` value, such as intent-match's reference intent, is no label)."""
    from annotation_store.studies.gold import gold_items

    out = {}
    for item in items:
        gold = (item.fields or {}).get("gold")
        if isinstance(gold, dict) and gold.get(field) not in (None, ""):
            out[item.item_id] = gold[field]
    for item_id, stored in gold_items(store, project).items():
        if stored["answers"].get(field) is not None:
            out[item_id] = stored["answers"][field]
    return out


def apply_crowd_flags(store: Store, project: str) -> list[Any]:
    """Record the crowd study's flags (not qualified, low gold accuracy, speeders) as
    exclusions with their source and reason; returns the records written (none where
    the project runs no crowd study)."""
    from annotation_store.crowd.study_quality import crowd_flags

    return [
        store.exclude_annotator(project, f.annotator, f.reason, source=f.source, by="study checks")
        for f in crowd_flags(store, project)
    ]


def _field(store: Store, project: str, field: str | None) -> tuple[ProjectInfo, str]:
    info = store.project(project)
    fields = aggregable_fields(info)
    if not fields:
        raise ValueError(f"project {project!r} has no binary or categorical field to aggregate")
    field = field or fields[0]
    if field not in fields:
        raise ValueError(f"cannot aggregate {field!r}; choose one of {', '.join(fields)}")
    return info, field


def _labels(store: Store, project: str, field: str, with_excluded: bool) -> pd.DataFrame:
    from agreement.exclusions import without_excluded
    from agreement.inputs import field_frame

    labels = field_frame(store.annotations_frame(project), field)
    if with_excluded:
        return labels
    return without_excluded(labels, store.excluded_annotators(project))


def aggregate_labels(
    store: Store, project: str, field: str | None = None, method: str = "majority"
) -> tuple[Aggregation, str]:
    """Aggregated labels of a nominal field (excluded annotators left out) and the field."""
    from agreement.aggregation import METHODS, aggregate

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: use {', '.join(METHODS)}")
    _, field = _field(store, project, field)
    return aggregate(_labels(store, project, field, False), method), field


def aggregated_reference(store: Store, project: str, method: str) -> pd.DataFrame | None:
    """item_id, field, value: ``method``'s label per item of every nominal field, as the
    reference evaluators are compared with (None for the default, ``majority``)."""
    import pandas as pd

    if method not in REFERENCES:
        raise ValueError(f"unknown reference {method!r}: use {', '.join(REFERENCES)}")
    if method == "majority":
        return None
    frames = []
    for field in aggregable_fields(store.project(project)):
        agg, _ = aggregate_labels(store, project, field, method)
        frames.append(pd.DataFrame({"item_id": agg.items, "field": field, "value": agg.labels}))
    if not frames:
        return pd.DataFrame(columns=["item_id", "field", "value"])
    return pd.concat(frames, ignore_index=True)


def combined_reference(
    store: Store, project: str, method: str, adjudicated: bool
) -> pd.DataFrame | None:
    """The reference frame (item_id, field, value, source) of the audit table: ``method``'s
    aggregated labels on nominal fields, overridden by the adjudicated labels when
    ``adjudicated`` (None when neither applies)."""
    import pandas as pd

    from annotation_store.adjudication import adjudicated_reference

    frames = []
    aggregated = aggregated_reference(store, project, method)
    if aggregated is not None:
        frames.append(aggregated.assign(source=method))
    if adjudicated:
        frames.append(adjudicated_reference(store, project))
    frames = [f for f in frames if f is not None and not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else None


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
        fields = [_field(store, project, field)[1]] if field else aggregable_fields(info)
        ordered = [] if field else ordered
    items = store.items(project)
    excluded = store.excluded_annotators(project)
    out: dict[str, Any] = {"project": project, "fields": {}}
    if ordered:
        out["ordinal"] = {}
    for name in ordered:
        rows = []
        for q in ordinal_quality(_labels(store, project, name, True)):
            row = q.to_dict()
            row["excluded"] = [
                {"source": r.source, "reason": r.reason} for r in excluded.get(q.annotator, [])
            ]
            rows.append(row)
        out["ordinal"][name] = {"method": ORDINAL_METHOD, "annotators": rows}
    for name in fields:
        gold = gold_answers(store, project, items, name)
        rows = []
        for q in annotator_quality(_labels(store, project, name, True), gold):
            row = q.to_dict()
            row["excluded"] = [
                {"source": r.source, "reason": r.reason} for r in excluded.get(q.annotator, [])
            ]
            rows.append(row)
        out["fields"][name] = {"n_gold_items": len(gold), "annotators": rows}
    return out
