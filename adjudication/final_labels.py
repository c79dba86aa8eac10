"""Adjudication: the final label of an item field or of one fact, with its source and cause.

A final label records where it came from:

- ``unanimous``: every annotator gave this value (accepted as is);
- ``majority``: most annotators gave it (accepted by a reviewer);
- ``adjudicated``: a reviewer chose it.

A reviewer may tag the cause of the disagreement (:data:`CAUSES`) and leave a note.
:func:`adjudicated_reference` turns the final labels (falling back to clear majorities)
into the ``(item_id, field, value, source)`` frame the agreement report takes as its
reference, so agreement can be computed against adjudicated labels too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation_store.label_frames import labels_by_annotator, majority
from annotation_store.models import Adjudication, Item, Project, utcnow
from annotation_store.store import Store
from kinds.base import FACT_IMPLIED, FACT_NOT_IMPLIED, FieldType

SOURCES = ("unanimous", "majority", "adjudicated")
CAUSES = {
    "guideline_gap": "guideline gap",
    "annotator_error": "annotator error",
    "metric_error": "metric error",
    "ambiguous_item": "ambiguous item",
}
WHOLE_FIELD = -1
REVIEW_ROLES = ("admin", "reviewer")
COLUMNS = [
    "item_id",
    "field",
    "fact_index",
    "value",
    "source",
    "cause",
    "note",
    "reviewer",
    "updated_at",
]


class AdjudicationError(ValueError):
    """A final label the store refuses (no majority to accept, bad value, no permission)."""


def _check_reviewer(store: Store, reviewer: str) -> None:
    who = store.annotator(reviewer)
    if who is None or who.role not in REVIEW_ROLES:
        raise AdjudicationError(f"{reviewer!r} is not a reviewer or admin")


def _locate(
    store: Store, s: Session, project: str, item_id: str, field: str, fact_index: int
) -> tuple[Project, Item, Adjudication | None]:
    """The project, the item and its current final label for ``field`` / ``fact_index``."""
    proj = store._project_row(s, project)
    item = store._item_row(s, proj.id, item_id)
    row = s.scalar(
        select(Adjudication).where(
            Adjudication.item_pk == item.id,
            Adjudication.field == field,
            Adjudication.fact_index == fact_index,
        )
    )
    return proj, item, row


def _canonical(
    store: Store, project: str, item_id: str, field: str, fact_index: int, value: Any
) -> Any:
    info = store.project(project)
    spec = info.task_kind.human_field(field, info.settings)
    if fact_index == WHOLE_FIELD:
        return spec.validate(value, store.item(project, item_id).fields)
    if spec.type is not FieldType.FACT_LABELS:
        raise AdjudicationError(f"{field!r} has no facts; adjudicate the whole field")
    facts = store.item(project, item_id).fields.get(spec.facts_field or "") or []
    if not 0 <= fact_index < len(facts):
        raise AdjudicationError(f"fact {fact_index} does not exist ({len(facts)} facts)")
    label = str(value).strip().upper()
    if label not in (FACT_IMPLIED, FACT_NOT_IMPLIED):
        raise AdjudicationError(f"a fact label is 'C' or 'M', got {value!r}")
    return label


def set_final_label(
    store: Store,
    project: str,
    item_id: str,
    field: str,
    value: Any,
    *,
    reviewer: str,
    fact_index: int = WHOLE_FIELD,
    source: str = "adjudicated",
    cause: str | None = None,
    note: str = "",
) -> dict[str, Any]:
    """Store (or replace) the final label of a field (or of fact ``fact_index``)."""
    if source not in SOURCES:
        raise AdjudicationError(f"source must be one of {SOURCES}")
    if cause is not None and cause not in CAUSES:
        raise AdjudicationError(f"cause must be one of {sorted(CAUSES)}")
    _check_reviewer(store, reviewer)
    canon = _canonical(store, project, item_id, field, fact_index, value)
    with store.write() as s:
        proj, item, row = _locate(store, s, project, item_id, field, fact_index)
        now = utcnow()
        if row is None:
            row = Adjudication(
                project_id=proj.id,
                item_pk=item.id,
                field=field,
                fact_index=fact_index,
                created_at=now,
            )
            s.add(row)
        row.value, row.source, row.cause, row.note = canon, source, cause, note or ""
        row.reviewer, row.updated_at = reviewer, now
        s.flush()
        return _as_dict(item_id, row)


def import_final_labels(
    store: Store, project: str, rows: Sequence[Mapping[str, Any]], note: str = ""
) -> int:
    """Store final labels another tool decided (Label Studio's ground truth), all or none.

    Each row holds ``item_id``, ``field``, ``value`` and ``reviewer``: the other tool's
    user, recorded by name (no workbench account is needed or made). Every value is
    checked first; a final label already there is replaced. Returns the number stored."""
    checked = [
        (r, _canonical(store, project, str(r["item_id"]), r["field"], WHOLE_FIELD, r["value"]))
        for r in rows
    ]
    with store.write() as s:
        for row, canon in checked:
            proj, item, final = _locate(store, s, project, str(row["item_id"]), row["field"], -1)
            now = utcnow()
            if final is None:
                final = Adjudication(
                    project_id=proj.id,
                    item_pk=item.id,
                    field=row["field"],
                    fact_index=WHOLE_FIELD,
                    created_at=now,
                )
                s.add(final)
            final.value, final.source, final.cause, final.note = canon, "adjudicated", None, note
            final.reviewer, final.updated_at = str(row["reviewer"]), now
    return len(checked)


def human_majority(
    store: Store, project: str, item_id: str, field: str, fact_index: int = WHOLE_FIELD
) -> tuple[Any, str] | None:
    """(majority value, "unanimous" | "majority") of the submitted labels, or None on a tie."""
    frame = store.annotations_frame(project, ("submitted",))
    people = labels_by_annotator(frame[frame["item_id"] == item_id]).get(item_id, {})
    values = []
    for labels in people.values():
        value = labels.get(field)
        if fact_index != WHOLE_FIELD:
            value = (
                value[fact_index] if isinstance(value, list) and fact_index < len(value) else None
            )
        values.append(value)
    found = majority(values)
    if found is None:
        return None
    value, unanimous = found
    return (list(value) if isinstance(value, tuple) else value), (
        "unanimous" if unanimous else "majority"
    )


def accept_majority(
    store: Store,
    project: str,
    item_id: str,
    field: str,
    *,
    reviewer: str,
    fact_index: int = WHOLE_FIELD,
    cause: str | None = None,
    note: str = "",
) -> dict[str, Any]:
    """Make the human majority final (source ``unanimous`` or ``majority``)."""
    found = human_majority(store, project, item_id, field, fact_index)
    if found is None:
        raise AdjudicationError("no clear majority to accept (no labels, or a tie)")
    value, source = found
    return set_final_label(
        store,
        project,
        item_id,
        field,
        value,
        reviewer=reviewer,
        fact_index=fact_index,
        source=source,
        cause=cause,
        note=note,
    )


def clear_final_label(
    store: Store,
    project: str,
    item_id: str,
    field: str,
    fact_index: int = WHOLE_FIELD,
    *,
    reviewer: str,
) -> bool:
    """Remove a final label; True when there was one."""
    _check_reviewer(store, reviewer)
    with store.write() as s:
        proj, item, row = _locate(store, s, project, item_id, field, fact_index)
        if row is None:
            return False
        s.delete(row)
        return True


def adjudications(store: Store, project: str, item_id: str | None = None) -> pd.DataFrame:
    """Every final label of a project (or one item): item_id, field, fact_index, value ..."""
    with store.read() as s:
        pid = store._project_row(s, project).id
        q = (
            select(Item.item_id, Adjudication)
            .join(Item, Item.id == Adjudication.item_pk)
            .where(Adjudication.project_id == pid)
            .order_by(Item.position, Adjudication.field, Adjudication.fact_index)
        )
        if item_id is not None:
            q = q.where(Item.item_id == item_id)
        rows = [_as_dict(iid, row) for iid, row in s.execute(q).all()]
    return pd.DataFrame(rows, columns=COLUMNS)


def _as_dict(item_id: str, row: Adjudication) -> dict[str, Any]:
    return {
        "item_id": item_id,
        "field": row.field,
        "fact_index": row.fact_index,
        "value": row.value,
        "source": row.source,
        "cause": row.cause,
        "note": row.note,
        "reviewer": row.reviewer,
        "updated_at": row.updated_at,
    }


def _weakest(sources: list[str]) -> str:
    """The least certain source among several (adjudicated > majority > unanimous)."""
    for source in ("adjudicated", "majority", "unanimous"):
        if source in sources:
            return source
    return "majority"


def adjudicated_reference(
    store: Store, project: str, *, fill_from_majority: bool = True, include_derived: bool = True
) -> pd.DataFrame:
    """Final labels as a reference frame: item_id, field, value, source.

    Per item and human field: the adjudicated value if there is one; else (with
    ``fill_from_majority``) the clear human majority, sourced ``unanimous``/``majority``.
    For fact-label fields, per-fact final labels override the per-fact majority and the
    field's source is the least certain of its facts (``adjudicated`` if any fact was).
    With ``include_derived``, the kind's derived scores (F1, actionability ...) computed
    from the reference labels are added too. Items with no clear value are left out.
    """
    info = store.project(project)
    kind = info.task_kind
    items = {it.item_id: it for it in store.items(project)}
    people_by_item = labels_by_annotator(store.annotations_frame(project, ("submitted",)))
    adj = adjudications(store, project)
    whole = {
        (r.item_id, r.field): (r.value, r.source)
        for r in adj[adj["fact_index"] == WHOLE_FIELD].itertuples(index=False)
    }
    facts = {
        (r.item_id, r.field, int(r.fact_index)): (r.value, r.source)
        for r in adj[adj["fact_index"] != WHOLE_FIELD].itertuples(index=False)
    }
    rows: list[tuple[str, str, Any, str]] = []
    for item_id, item in items.items():
        people = people_by_item.get(item_id, {})
        labels: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for spec in kind.human_fields(info.settings):
            found = _reference_value(
                spec, item_id, item.fields, people, whole, facts, fill_from_majority
            )
            if found is not None:
                labels[spec.name], sources[spec.name] = found
                rows.append((item_id, spec.name, found[0], found[1]))
        if include_derived and labels:
            source = _weakest(list(sources.values()))
            for name, value in kind.derive(labels, item.fields).items():
                if value is not None:
                    rows.append((item_id, name, value, source))
    return pd.DataFrame(rows, columns=["item_id", "field", "value", "source"])


def _reference_value(
    spec: Any,
    item_id: str,
    item_fields: Mapping[str, Any],
    people: Mapping[str, Mapping[str, Any]],
    whole: Mapping[tuple[str, str], tuple[Any, str]],
    facts: Mapping[tuple[str, str, int], tuple[Any, str]],
    fill: bool,
) -> tuple[Any, str] | None:
    if (item_id, spec.name) in whole:
        return whole[(item_id, spec.name)]
    if spec.type is FieldType.FACT_LABELS:
        n = len(item_fields.get(spec.facts_field or "") or [])
        if n == 0:
            return None
        values, sources = [], []
        for i in range(n):
            if (item_id, spec.name, i) in facts:
                value, source = facts[(item_id, spec.name, i)]
            elif fill:
                per_fact = [
                    lab[i] if isinstance(lab, list) and i < len(lab) else None
                    for lab in (p.get(spec.name) for p in people.values())
                ]
                found = majority(per_fact)
                if found is None:
                    return None
                value, source = found[0], "unanimous" if found[1] else "majority"
            else:
                return None
            values.append(value)
            sources.append(source)
        return values, _weakest(sources)
    if not fill:
        return None
    found = majority([p.get(spec.name) for p in people.values()])
    if found is None:
        return None
    return found[0], "unanimous" if found[1] else "majority"
