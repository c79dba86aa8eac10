"""What evaluators are compared with: the people's majority / mean, Dawid-Skene or MACE
labels on nominal fields, the mean or median on ordinal ones, adjudicated labels."""

from __future__ import annotations

from typing import TYPE_CHECKING

from study_inputs.labels import field_labels

if TYPE_CHECKING:
    import pandas as pd

    from agreement.aggregation import Aggregation
    from annotation_store import ProjectInfo, Store

#: Human references evaluators can be compared with: the default (the people's mean,
#: majority for binary fields) or aggregated labels on nominal fields.
REFERENCES = ("majority", "dawid_skene", "mace")


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
    return ordinal_reference(field_labels(store, project, field, False), method), field


def nominal_field(store: Store, project: str, field: str | None) -> tuple[ProjectInfo, str]:
    """The project and ``field`` checked to be nominal (None: its first nominal field)."""
    info = store.project(project)
    fields = aggregable_fields(info)
    if not fields:
        raise ValueError(f"project {project!r} has no binary or categorical field to aggregate")
    field = field or fields[0]
    if field not in fields:
        raise ValueError(f"cannot aggregate {field!r}; choose one of {', '.join(fields)}")
    return info, field


def aggregate_labels(
    store: Store, project: str, field: str | None = None, method: str = "majority"
) -> tuple[Aggregation, str]:
    """Aggregated labels of a nominal field (excluded annotators left out) and the field."""
    from agreement.aggregation import METHODS, aggregate

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: use {', '.join(METHODS)}")
    _, field = nominal_field(store, project, field)
    return aggregate(field_labels(store, project, field, False), method), field


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

    from adjudication.final_labels import adjudicated_reference

    frames = []
    aggregated = aggregated_reference(store, project, method)
    if aggregated is not None:
        frames.append(aggregated.assign(source=method))
    if adjudicated:
        frames.append(adjudicated_reference(store, project))
    frames = [f for f in frames if f is not None and not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else None
