"""The drill-down of one audited item: the item, people, evaluators, facts or rubric."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from adjudication.final_labels import WHOLE_FIELD
from annotation_store import AnnotatorInfo, ProjectInfo
from annotation_store.label_frames import labels_by_annotator
from audit.analysis import fact_fields, fact_grid, latest_results, rubric_grid
from audit.question_grid import question_grid
from ui.audit.adjudication_view import adjudication_panel
from ui.audit.fact_grid import render_fact_grid
from ui.context import get_store
from ui.evaluator_panel import evaluator_panel
from ui.tables import dash_missing

CATEGORY_COLOURS = {
    "metric differs": "orange",
    "humans disagree": "violet",
    "evaluator failed": "red",
    "agree": "green",
}


def render_drilldown(
    project: ProjectInfo,
    item_id: str,
    user: AnnotatorInfo,
    row: Mapping[str, Any] | None,
    compared: str | None = None,
) -> None:
    """Everything about one item, with the fact grid or rubric first; the Adjudicate tab
    opens on the first flagged fact, else on the field the audit compares."""
    store = get_store()
    item = store.item(project.name, item_id)
    kind = project.task_kind
    frame = store.annotations_frame(project.name, ("submitted",), item_id=item_id)
    people = labels_by_annotator(frame).get(item_id, {})
    latest = latest_results(store.item_results(project.name, item_id), store.runs(project.name))
    ok = {lab: r for lab, r in latest.items() if r.get("result_status") == "ok"}

    badge = ""
    if row is not None:
        cat = str(row.get("category"))
        badge = f" :{CATEGORY_COLOURS.get(cat, 'gray')}-badge[{cat}]"
    st.subheader(f"Item `{item_id}`{badge}", anchor="drilldown")
    meta = [
        f"generator **{item.generator}**" if item.generator else "",
        f"split **{item.split}**" if item.split else "",
        f"{len(people)} annotator(s)",
        f"{len(latest)} evaluator(s)",
    ]
    st.caption(" · ".join(m for m in meta if m))
    _item_fields(item.fields, [f for _h, f in fact_fields(kind, project.settings)])

    has_facts = bool(fact_fields(kind, project.settings))
    titles = ["Fact grid" if has_facts else "Rubric", "Annotators", "Evaluators"]
    can_adjudicate = user.role in ("admin", "reviewer")
    if can_adjudicate:
        titles.append("Adjudicate")
    # Keyed, state-tracking tabs: the open tab survives the reruns its own widgets cause
    # (an untracked tab bar went back to the first tab on the first change in Adjudicate),
    # and only the open tab's content is built.
    tabs = st.tabs(titles, key=f"audit-tabs-{project.name}-{item_id}", on_change="rerun")
    grid = _grid(kind, project.settings, item.fields, people, ok) if has_facts else None
    if tabs[0].open is not False:
        with tabs[0]:
            if grid is not None:
                details, table = grid
                render_fact_grid(table, sorted(details), key=f"audit-grid-{item_id}")
                if not details:
                    st.caption(
                        "No evaluator with per-fact labels (Bi-Fact) has a result on this "
                        "item yet: run it in the Evaluators tab."
                    )
            _rubric(kind, project.settings, people, item.fields, ok)
            _questions(kind, project.settings, people, item.fields)
    if tabs[1].open is not False:
        with tabs[1]:
            _annotators(people)
    if tabs[2].open is not False:
        with tabs[2]:
            evaluator_panel(project, item, user, key="audit")
    if can_adjudicate and tabs[3].open is not False:
        flagged = _first_flagged(grid[1], fact_fields(kind, project.settings)) if grid else None
        focus = flagged or ((compared, WHOLE_FIELD) if compared else None)
        with tabs[3]:
            adjudication_panel(project, item, user, people, focus=focus)


def _grid(
    kind: Any,
    settings: Mapping[str, Any],
    item_fields: Mapping[str, Any],
    people: Mapping[str, Any],
    ok: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, Any], pd.DataFrame]:
    """(per-fact evaluator details, fact grid) of the item."""
    facts = fact_fields(kind, settings)
    details = {
        lab: r.get("details") or {}
        for lab, r in ok.items()
        if any(isinstance((r.get("details") or {}).get(f), list) for _h, f in facts)
    }
    return details, fact_grid(kind, settings, item_fields, people, details)


def _questions(
    kind: Any, settings: Mapping[str, Any], people: Mapping[str, Any], fields: Mapping[str, Any]
) -> None:
    """Every question with each annotator's answer, when some are not numbers."""
    if all(f.numeric or f.facts_field for f in kind.human_fields(settings)):
        return  # the rubric and fact grids already show everything
    st.markdown("**Per question** (each annotator's answer; agree = all the same)")
    grid = question_grid(kind, settings, people, fields)
    st.dataframe(grid, hide_index=True, key="audit-question-grid")


def _first_flagged(grid: pd.DataFrame, fields: list[tuple[str, str]]) -> tuple[str, int] | None:
    """(human field, fact index) of the first fact an evaluator disagrees on, or None."""
    if grid.empty or not grid["flagged"].any():
        return None
    first = grid[grid["flagged"].astype(bool)].iloc[0]
    human = {facts: name for name, facts in fields}.get(str(first["side"]))
    return (human, int(first["index"])) if human else None


def _item_fields(fields: Mapping[str, Any], fact_lists: list[str]) -> None:
    texts = {k: v for k, v in fields.items() if k not in fact_lists and k != "generator"}
    cols = st.columns(min(max(len(texts), 1), 4))
    for i, (name, value) in enumerate(texts.items()):
        with cols[i % len(cols)]:
            st.markdown(f"**{name}**")
            st.markdown(str(value) if not isinstance(value, dict | list) else "")
            if isinstance(value, dict | list):
                st.json(value, expanded=False)


def _rubric(
    kind: Any,
    settings: Mapping[str, Any],
    people: Mapping[str, Any],
    item_fields: Mapping[str, Any],
    ok: Mapping[str, Mapping[str, Any]],
) -> None:
    scores = {lab: r.get("mean_scores") or {} for lab, r in ok.items()}
    grid = rubric_grid(kind, settings, people, item_fields, scores)
    if grid.empty:
        return
    findings = {
        lab: (r.get("details") or {}).get("errors")
        for lab, r in ok.items()
        if isinstance((r.get("details") or {}).get("errors"), list)
    }
    left, right = st.columns([1, 1]) if findings else (st.container(), None)
    with left:
        st.markdown("**Per dimension** (people and evaluators, on each dimension's scale)")
        shown, config = dash_missing(
            grid,
            {
                c: st.column_config.NumberColumn(format="%.2f")
                for c in grid.columns
                if c not in ("dimension", "scale")
            },
            "no value on this dimension (not scored or not labelled)",
        )
        st.dataframe(shown, hide_index=True, width="stretch", column_config=config)
    if right is not None:
        with right:
            for lab, errors in findings.items():
                st.markdown(f"**{lab}: per-error findings**")
                st.dataframe(pd.DataFrame(errors), hide_index=True, width="stretch")


def _annotators(people: Mapping[str, Mapping[str, Any]]) -> None:
    if not people:
        st.caption("No submitted labels on this item.")
        return
    fields = sorted({f for labels in people.values() for f in labels})
    frame = pd.DataFrame(
        [
            {"annotator": who, **{f: _show(labels.get(f)) for f in fields}}
            for who, labels in sorted(people.items())
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch")


def _show(value: Any) -> Any:
    return " ".join(map(str, value)) if isinstance(value, list) else value
