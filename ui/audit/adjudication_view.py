"""Adjudication form of the drill-down (reviewers and admins): final label, cause, note."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from adjudication.final_labels import (
    CAUSES,
    WHOLE_FIELD,
    AdjudicationError,
    accept_majority,
    adjudications,
    human_majority,
    set_final_label,
)
from annotation_store import AnnotatorInfo, ItemRecord, ProjectInfo
from kinds.base import FieldType, HumanField
from ui.context import get_store

SOURCE_ICONS = {
    "unanimous": ":material/groups:",
    "majority": ":material/how_to_vote:",
    "adjudicated": ":material/gavel:",
}


def _targets(project: ProjectInfo, item: ItemRecord) -> list[tuple[HumanField, int, str]]:
    """(field, fact index, label) of everything that can get a final label."""
    out = []
    for spec in project.task_kind.human_fields(project.settings):
        if spec.type is FieldType.FACT_LABELS:
            facts = item.fields.get(spec.facts_field or "") or []
            side = (spec.facts_field or spec.name).replace("_", " ")
            for i, fact in enumerate(facts):
                out.append((spec, i, f"{side} #{i + 1}: {fact}"))
        else:
            out.append((spec, WHOLE_FIELD, spec.name))
    return out


def adjudication_panel(
    project: ProjectInfo,
    item: ItemRecord,
    user: AnnotatorInfo,
    people: Mapping[str, Mapping[str, Any]],
    focus: tuple[str, int] | None = None,
) -> None:
    """Set or accept the final label of a field or fact; list the item's final labels.

    ``focus`` (field, fact index) is where the picker starts: the fact or field the audit
    flagged, rather than the first field.
    """
    store = get_store()
    if user.role not in ("admin", "reviewer"):
        st.caption("Only reviewers and admins adjudicate.")
        return
    targets = _targets(project, item)
    if not targets:
        st.caption("Nothing to adjudicate on this item.")
        return
    key = f"adj-{project.name}-{item.item_id}"
    flash = st.session_state.pop(f"{key}-flash", None)
    if flash:
        st.success(flash, icon=":material/check:")
    start = next(
        (i for i, (spec, fact, _l) in enumerate(targets) if (spec.name, fact) == focus), None
    )
    if start is None:  # else the first field or fact the people disagree on
        start = next(
            (i for i, (spec, fact, _l) in enumerate(targets) if _disputed(people, spec.name, fact)),
            0,
        )
    choice = st.selectbox(
        "Field or fact",
        range(len(targets)),
        index=start,
        key=f"{key}-target",
        format_func=lambda i: targets[i][2],
    )
    spec, fact_index, label = targets[choice]
    found = human_majority(store, project.name, item.item_id, spec.name, fact_index)
    votes = _votes(people, spec.name, fact_index)
    st.markdown(
        f"People: {votes or 'no labels'} · majority: "
        f"**{found[0] if found else 'none (tie or no labels)'}**"
        + (f" ({found[1]})" if found else "")
    )
    options = _options(spec, fact_index)
    value = st.radio(
        "Final label",
        options,
        format_func=lambda v: shown_value(spec, fact_index, v),
        horizontal=True,
        key=f"{key}-value-{choice}",
        index=options.index(found[0]) if found and found[0] in options else 0,
    )
    cause = st.selectbox(
        "Cause of the disagreement",
        [None, *CAUSES],
        key=f"{key}-cause",
        format_func=lambda c: "(none)" if c is None else CAUSES[c],
    )
    note = st.text_area(
        "Note", key=f"{key}-note", height=68, placeholder="Why this label (for the other reviewers)"
    )
    left, right = st.columns(2)
    if left.button(
        "Accept the majority",
        key=f"{key}-accept",
        disabled=found is None,
        icon=":material/how_to_vote:",
        width="stretch",
    ):
        _save(
            key,
            lambda: accept_majority(
                store,
                project.name,
                item.item_id,
                spec.name,
                reviewer=user.name,
                fact_index=fact_index,
                cause=cause,
                note=note,
            ),
            label,
            spec,
            fact_index,
        )
    if right.button(
        "Set final label",
        key=f"{key}-set",
        type="primary",
        icon=":material/gavel:",
        width="stretch",
    ):
        _save(
            key,
            lambda: set_final_label(
                store,
                project.name,
                item.item_id,
                spec.name,
                value,
                reviewer=user.name,
                fact_index=fact_index,
                source="adjudicated",
                cause=cause,
                note=note,
            ),
            label,
            spec,
            fact_index,
        )
    final = adjudications(store, project.name, item.item_id)
    if not final.empty:
        st.markdown("**Final labels on this item**")
        specs = {t[0].name: t[0] for t in targets}
        shown = final.assign(
            fact=[
                ("whole field" if i == WHOLE_FIELD else f"#{i + 1}") for i in final["fact_index"]
            ],
            value=[
                shown_value(specs.get(f), i, v)
                for f, i, v in zip(final["field"], final["fact_index"], final["value"], strict=True)
            ],
            cause=[CAUSES.get(c, "") if c else "" for c in final["cause"]],
        )
        st.dataframe(
            shown[["field", "fact", "value", "source", "cause", "note", "reviewer", "updated_at"]],
            hide_index=True,
            width="stretch",
            key=f"{key}-final",
        )


def _save(key: str, action: Any, label: str, spec: HumanField, fact_index: int) -> None:
    try:
        row = action()
    except (AdjudicationError, ValueError) as exc:
        st.error(str(exc))
        return
    shown = shown_value(spec, fact_index, row["value"])
    st.session_state[f"{key}-flash"] = f"Saved **{label}** = {shown} ({row['source']})"
    st.rerun()


def shown_value(spec: HumanField | None, fact_index: int, value: Any) -> str:
    """A final label as people read it: yes / no for binary fields, level words, C / M,
    a structured answer in its question type's words."""
    if spec is not None and fact_index == WHOLE_FIELD and spec.question_type.structured:
        return spec.question_type.answer_text(spec, value, {})
    if isinstance(value, list):
        return " ".join(map(str, value))
    if spec is None or fact_index != WHOLE_FIELD:
        return str(value)
    words = dict(spec.level_descriptions or {})
    if spec.type is FieldType.BINARY:
        words = {1: "yes", 0: "no", **words}
    for level, word in words.items():
        if str(level) == str(value) or (
            _number(level) is not None and _number(level) == _number(value)
        ):
            return f"{word} ({value})" if spec.type is not FieldType.BINARY else word
    return str(value)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _disputed(people: Mapping[str, Mapping[str, Any]], field: str, fact_index: int) -> bool:
    """True when the people gave this field (or fact) more than one value."""
    values = (_value_at(labels, field, fact_index) for labels in people.values())
    return len({str(v) for v in values if v is not None}) > 1


def _value_at(labels: Mapping[str, Any], field: str, fact_index: int) -> Any:
    """One person's value of a field, or of one fact of a fact-label field (or None)."""
    value = labels.get(field)
    if fact_index == WHOLE_FIELD:
        return value
    return value[fact_index] if isinstance(value, list) and fact_index < len(value) else None


def _options(spec: HumanField, fact_index: int) -> list[Any]:
    if fact_index != WHOLE_FIELD:
        return ["C", "M"]
    if spec.values:
        return list(spec.values)
    lo, hi = spec.minimum or 0.0, spec.maximum if spec.maximum is not None else 1.0
    return [round(lo + (hi - lo) * i / 4, 3) for i in range(5)]


def _votes(people: Mapping[str, Mapping[str, Any]], field: str, fact_index: int) -> str:
    parts = []
    for who, labels in sorted(people.items()):
        value = _value_at(labels, field, fact_index)
        if value is not None:
            parts.append(f"{who} **{value}**")
    return ", ".join(parts)
