"""Gold items (attention checks): marking them, mixing them into the queue, scoring them.

A gold item keeps its answers in ``gold_items``; the item itself looks like any other,
so the Annotate view cannot tell them apart. Gold items never enter the ordinary queue:
``pick_gold`` hands them out at the study's ``gold_rate`` (ignoring k, since every
worker should meet them), and agreement drops them (``Store.study_checks``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from typing import Any

import pandas as pd
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from annotation_store.models import GoldItem, Item, Project
from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from kinds import ValidationError
from studies.flow_settings import answers_match, study_of


def _project_id(s: Session, project: str) -> int:
    pid = s.scalar(select(Project.id).where(Project.name == project))
    if pid is None:
        raise StoreError(f"no project called {project!r}")
    return pid


def canonical_answers(store: Store, project: str, answers: Any) -> dict[str, Any]:
    """Gold answers checked against the kind: a field -> value object, or one value when
    the kind has a single field. Raises :class:`StoreError` with the reason."""
    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    if not isinstance(answers, Mapping):
        if len(fields) != 1:
            raise StoreError(f"gold needs an object naming the fields ({', '.join(fields)})")
        answers = {next(iter(fields)): answers}
    out = {}
    for name, value in answers.items():
        if name not in fields:
            raise StoreError(f"gold names no field of this kind: {name!r}")
        try:
            out[name] = fields[name].validate(value)
        except ValidationError as exc:
            raise StoreError(f"gold {name!r}: {exc}") from None
    if not out:
        raise StoreError("gold is empty")
    return out


def answers_from_text(text: str) -> Any:
    """Gold answers typed by a person: JSON when it parses, else the text as one label."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text.strip()


def set_gold(
    store: Store, project: str, item_id: str, answers: Any, explanation: str = ""
) -> dict[str, Any]:
    """Mark an item gold with its answers (replacing earlier ones); returns them."""
    clean = canonical_answers(store, project, answers)
    with store.write() as s:
        pid = _project_id(s, project)
        pk = s.scalar(select(Item.id).where(Item.project_id == pid, Item.item_id == item_id))
        if pk is None:
            raise StoreError(f"no item {item_id!r} in this project")
        row = s.scalar(select(GoldItem).where(GoldItem.item_pk == pk))
        if row is None:
            s.add(GoldItem(project_id=pid, item_pk=pk, answers=clean, explanation=explanation))
        else:
            row.answers, row.explanation = clean, explanation
    return clean


def set_gold_many(store: Store, project: str, golds: Mapping[str, Any]) -> int:
    """Mark several items gold at once (an import's ``gold`` column); returns how many."""
    for item_id, answers in golds.items():
        set_gold(store, project, item_id, answers)
    return len(golds)


def clear_gold(store: Store, project: str, item_id: str) -> bool:
    """Make a gold item ordinary again. True when it was gold."""
    with store.write() as s:
        pid = _project_id(s, project)
        pk = s.scalar(select(Item.id).where(Item.project_id == pid, Item.item_id == item_id))
        result = s.execute(delete(GoldItem).where(GoldItem.item_pk == pk))
        # the claim queue marked it full as gold: it may now take ordinary claims
        s.execute(update(Item).where(Item.id == pk).values(queue_full=False))
        return bool(result.rowcount)


def gold_items(store: Store, project: str) -> dict[str, dict[str, Any]]:
    """item_id -> {"answers": ..., "explanation": ...} for every gold item."""
    with store.read() as s:
        pid = _project_id(s, project)
        rows = s.execute(
            select(Item.item_id, GoldItem.answers, GoldItem.explanation)
            .join(Item, Item.id == GoldItem.item_pk)
            .where(GoldItem.project_id == pid)
        ).all()
    return {r[0]: {"answers": dict(r[1]), "explanation": r[2]} for r in rows}


def pick_gold(
    settings: Mapping[str, Any], annotator: str, mine: Collection[int], golds: set[int]
) -> int | None:
    """The gold item to hand out now, or None: keeps the share of gold among the
    annotator's items (``mine``: the item keys they hold) at the study's ``gold_rate``
    (never as the very first item). ``golds``: the project's gold item keys."""
    rate = study_of(settings).gold_rate
    if rate <= 0:
        return None
    seen = sum(1 for pk in mine if pk in golds)
    if seen + 1 > rate * (len(mine) + 1):
        return None
    fresh = sorted(golds - set(mine))
    if not fresh:
        return None
    # A fixed order per annotator, so workers do not all meet the same check first.
    return min(fresh, key=lambda pk: hashlib.sha256(f"{annotator}:{pk}".encode()).hexdigest())


def gold_results(store: Store, project: str) -> pd.DataFrame:
    """One row per submitted gold item x annotator: correct when every gold field matches."""
    cols = ["annotator", "item_id", "correct"]
    golds = gold_items(store, project)
    if not golds:
        return pd.DataFrame(columns=cols)
    frame = store.annotations_frame(project, ("submitted",))
    frame = frame[frame["item_id"].isin(list(golds))]
    rows = []
    for (item_id, who), group in frame.groupby(["item_id", "annotator"], sort=True):
        given = dict(zip(group["field"], group["value"], strict=True))
        answers = golds[item_id]["answers"]
        rows.append(
            {"annotator": who, "item_id": item_id, "correct": answers_match(given, answers)}
        )
    return pd.DataFrame(rows, columns=cols)


def gold_accuracy(store: Store, project: str) -> dict[str, tuple[int, int]]:
    """annotator -> (correct, answered) over the gold items they submitted."""
    results = gold_results(store, project)
    return {
        who: (int(g["correct"].sum()), len(g)) for who, g in results.groupby("annotator", sort=True)
    }
