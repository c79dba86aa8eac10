"""Label Studio's JSON export: tasks with ``data``, ``annotations``, ``drafts`` and
``predictions``, as label-studio-sdk 2.1.2's models serialise them (fixture:
tests/data/peers/label-studio, written with the SDK's ``Annotation`` / ``Prediction``).

A result's ``from_name`` is the workbench field (``--map`` renames it); its ``type`` says
where the value is: ``choices`` (``{"choices": ["yes"]}``), ``rating``, ``number`` or
``textarea`` (``{"text": ["..."]}``, also fact lists as JSON). ``data.item_id`` is the
item id (else the task id). What each part becomes:

- annotations: labels; ``completed_by`` is a user id (an integer: ``ls-user-<id>``, or
  the name a ``<export>.users.json`` beside the file gives it; an object's email);
  ``was_cancelled`` is a skip; ``lead_time`` is the time on task;
- drafts: draft labels of their user;
- predictions: evaluator scores (evaluator ``label-studio``, judge model the
  ``model_version``); their confidence ``score`` is counted in the notes;
- ``ground_truth`` annotations: a reviewer's decision, so they become the workbench's
  final labels (adjudicated, the reviewer named by their user), not that user's labels.

The export writes integer ``completed_by`` (the names in ``<out>.users.json``), drafts,
skips as cancelled annotations, lead times, evaluator scores as predictions, final labels
as ``ground_truth`` annotations of their reviewer (whole fields; per-fact final labels and
a final label's source and cause are counted in the notes), and the labeling config Label
Studio needs to open the tasks (``<out>.label_config.xml``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import (
    Converted,
    Tagged,
    existing,
    fail,
    label,
    read_json_records,
    user_names,
)

if TYPE_CHECKING:
    from annotation_store import Store
    from kinds import HumanField

WRITES = ("items", "annotations")


def _annotator(completed_by: Any, users: dict[str, str]) -> str | None:
    if isinstance(completed_by, dict):
        return (
            completed_by.get("email")
            or completed_by.get("username")
            or (_annotator(completed_by["id"], users) if "id" in completed_by else None)
        )
    if isinstance(completed_by, int | str) and str(completed_by).strip():
        return users.get(str(completed_by), f"ls-user-{completed_by}")
    return None


def _result_value(result: Any) -> Any:
    if not isinstance(result, dict):
        raise ValueError("a result must be an object")
    kind = result.get("type")
    value = result.get("value") or {}
    if not isinstance(value, dict):
        raise ValueError("a result's value must be an object")
    if kind == "choices":
        choices = value.get("choices") or []
        return choices[0] if len(choices) == 1 else choices
    if kind in ("rating", "number"):
        return value.get(kind)
    if kind == "textarea":
        return "\n".join(value.get("text") or [])
    raise ValueError(f"result type {kind!r} is not supported (choices, rating, number, textarea)")


def users_file(path: Path) -> Path:
    """Where the names of an export's integer user ids are kept."""
    return path.with_name(f"{path.stem}.users.json")


def _users(path: Path) -> dict[str, str]:
    return user_names(users_file(path))


def _results(out: Converted, where: str, results: Any, **row: Any) -> None:
    if not isinstance(results, list):
        raise fail(out.display, where, "'result' must be a list")
    for result in results:
        field = result.get("from_name") if isinstance(result, dict) else None
        at = f"{where}, result {field!r}"
        out.annotations.append(
            label(out.display, at, lambda r=result: _result_value(r), field=field, **row)
        )


def _finals(out: Converted, where: str, results: Any, **row: Any) -> None:
    """A ground-truth annotation's results as its user's final labels (a reviewer's)."""
    if not isinstance(results, list):
        raise fail(out.display, where, "'result' must be a list")
    for result in results:
        field = result.get("from_name") if isinstance(result, dict) else None
        at = f"{where} (ground truth), result {field!r}"
        tagged = label(out.display, at, lambda r=result: _result_value(r), field=field, **row)
        out.finals.append(tagged)


def _entries(task: dict[str, Any], key: str, where: str, display: str) -> list[dict[str, Any]]:
    entries = task.get(key) or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise fail(display, where, f"{key!r} must be a list of objects")
    return entries


def _predictions(out: Converted, where: str, item_id: Any, task: dict[str, Any]) -> int:
    """Predictions as evaluator scores; returns how many carried a confidence score."""
    confident = 0
    for p_index, prediction in enumerate(_entries(task, "predictions", where, out.display), 1):
        model = prediction.get("model_version") or None
        confident += prediction.get("score") is not None
        for result in prediction.get("result") or []:
            field = result.get("from_name") if isinstance(result, dict) else None
            at = f"{where}, prediction {p_index}, result {field!r}"
            row = {"item_id": item_id, "evaluator": "label-studio", "field": field}
            scored = label(out.display, at, lambda r=result: _result_value(r), **row)
            value = scored.row["value"]
            if isinstance(value, bool) or not isinstance(value, int | float):
                out.notes.append(f"{at}: a {type(value).__name__} prediction is not a score")
                continue
            out.scores.append(Tagged(at, {**scored.row, "judge_model": model}))
    return confident


def read(path: str | Path) -> Converted:
    """Items, labels (drafts included), time on task and prediction scores of a Label
    Studio JSON export."""
    p = existing(path)
    out = Converted(p.name, time_source="Label Studio lead_time")
    users = _users(p)
    confident = empty_skips = 0
    for index, task in enumerate(read_json_records(p, p.name), start=1):
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise fail(p.name, f"task {index}", "a task needs a 'data' object")
        data = dict(task["data"])
        item_id = data.pop("item_id", None) or task.get("id")
        where = f"task {index} (id {task.get('id')})"
        out.items.append(Tagged(where, {"item_id": item_id, **data}))
        for a_index, ann in enumerate(_entries(task, "annotations", where, p.name), start=1):
            at = f"{where}, annotation {a_index}"
            annotator = _annotator(ann.get("completed_by"), users)
            if annotator is None:
                raise fail(p.name, at, "no completed_by")
            if ann.get("ground_truth") and not ann.get("was_cancelled"):
                _finals(out, at, ann.get("result") or [], item_id=item_id, reviewer=annotator)
                continue
            status = "skipped" if ann.get("was_cancelled") else "submitted"
            row = {"item_id": item_id, "annotator": annotator, "status": status}
            _results(out, at, ann.get("result") or [], **row)
            empty_skips += status == "skipped" and not ann.get("result")
            if ann.get("lead_time") is not None:
                out.seconds.append((item_id, annotator, ann.get("lead_time")))
        for d_index, draft in enumerate(_entries(task, "drafts", where, p.name), start=1):
            at = f"{where}, draft {d_index}"
            annotator = _annotator(draft.get("completed_by", draft.get("user")), users)
            if annotator is None:
                raise fail(p.name, at, "a draft needs its user")
            row = {"item_id": item_id, "annotator": annotator, "status": "draft"}
            _results(out, at, draft.get("result") or [], **row)
        confident += _predictions(out, where, item_id, task)
    if confident:
        out.notes.append(f"{confident} prediction confidence scores not imported")
    if empty_skips:
        out.notes.append(
            f"{empty_skips} cancelled (skipped) annotations hold no result and are not imported"
        )
    return out


def _result(field: HumanField, value: Any) -> dict[str, Any]:
    base = {"from_name": field.name, "to_name": "item"}
    return {**base, **field.question_type.label_studio_result(field, value)}


def _user_ids(names: list[str]) -> dict[str, int]:
    """Label Studio's integer user ids for the workbench's annotator names."""
    return {name: n for n, name in enumerate(sorted(set(names)), start=1)}


def tasks(
    store: Store, project: str, with_labels: bool = True, notes: list[str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The project as Label Studio tasks (one annotation or draft per annotator and item,
    final labels as ground-truth annotations, evaluator scores of human fields as
    predictions) and the user ids used; what LS cannot hold is counted in ``notes``."""
    from annotation_store.exporting import annotations_export_frame, items_frame
    from interop.frames import records

    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    tasks_by_item: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(records(items_frame(store, project)), start=1):
        data = {k: v for k, v in row.items() if v is not None}
        tasks_by_item[row["item_id"]] = {
            "id": n,
            "data": data,
            "annotations": [],
            "drafts": [],
            "predictions": [],
        }
    if not with_labels:
        return list(tasks_by_item.values()), {}
    rows = records(annotations_export_frame(store, project))
    finals = _final_labels(store, project, fields, notes if notes is not None else [])
    ids = _user_ids([r["annotator"] for r in rows] + [r["reviewer"] for r in finals])
    seconds = {
        (r.item_id, r.annotator): r.seconds_spent
        for r in store.progress_frame(project).itertuples()
    }
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        key = (row["item_id"], row["annotator"])
        ann = grouped.get(key)
        if ann is None:
            task = tasks_by_item[row["item_id"]]
            ann = grouped[key] = {"id": len(grouped) + 1, "result": [], "task": task["id"]}
            when = str(row["updated_at"]).replace(" ", "T")
            if row["status"] == "draft":
                ann.update(completed_by=ids[row["annotator"]], created_at=when, updated_at=when)
                task["drafts"].append(ann)
            else:
                ann.update(
                    completed_by=ids[row["annotator"]],
                    was_cancelled=row["status"] == "skipped",
                    created_at=when,
                    updated_at=when,
                    lead_time=seconds.get(key) or None,
                )
                task["annotations"].append(ann)
        ann["result"].append(_result(fields[row["field"]], row["value"]))
    _add_ground_truth(finals, fields, tasks_by_item, ids, first_id=len(grouped) + 1)
    _add_predictions(store, project, fields, tasks_by_item)
    return list(tasks_by_item.values()), ids


def _final_labels(
    store: Store, project: str, fields: dict[str, HumanField], notes: list[str]
) -> list[dict[str, Any]]:
    """The project's whole-field final labels (reviewer named); the rest counted in notes."""
    from annotation_store.adjudication import WHOLE_FIELD, adjudications
    from interop.frames import records

    rows = records(adjudications(store, project))
    whole = [r for r in rows if r["fact_index"] == WHOLE_FIELD and r["field"] in fields]
    if len(whole) < len(rows):
        notes.append(
            f"{len(rows) - len(whole)} per-fact final labels not written (a Label Studio "
            "ground-truth annotation holds whole fields)"
        )
    if whole:
        notes.append(
            f"{len(whole)} final labels written as ground-truth annotations; their source "
            "(unanimous, majority, adjudicated), cause and note are not carried"
        )
    return [{**r, "reviewer": r["reviewer"] or "reviewer"} for r in whole]


def _add_ground_truth(
    finals: list[dict[str, Any]],
    fields: dict[str, HumanField],
    tasks: dict[str, dict[str, Any]],
    ids: dict[str, int],
    first_id: int,
) -> None:
    """One ``ground_truth`` annotation per item and reviewer, holding their final labels."""
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for row in finals:
        if row["item_id"] not in tasks:
            continue
        key = (row["item_id"], row["reviewer"])
        ann = grouped.get(key)
        if ann is None:
            task = tasks[row["item_id"]]
            when = str(row["updated_at"]).replace(" ", "T")
            ann = grouped[key] = {
                "id": first_id + len(grouped),
                "result": [],
                "task": task["id"],
                "completed_by": ids[row["reviewer"]],
                "ground_truth": True,
                "was_cancelled": False,
                "created_at": when,
                "updated_at": when,
            }
            task["annotations"].append(ann)
        ann["result"].append(_result(fields[row["field"]], row["value"]))


def _add_predictions(
    store: Store, project: str, fields: dict[str, HumanField], tasks: dict[str, dict[str, Any]]
) -> None:
    from annotation_store.exporting import scores_export_frame
    from interop.frames import records

    by_run: dict[tuple[str, str, Any, Any], dict[str, Any]] = {}
    for row in records(scores_export_frame(store, project)):
        if row["field"] not in fields or row["item_id"] not in tasks:
            continue
        version = "/".join(str(p) for p in (row["evaluator"], row["judge_model"]) if p)
        key = (row["item_id"], row["evaluator"], row["judge_model"], row["run"])
        task = tasks[row["item_id"]]
        if key not in by_run:
            by_run[key] = {"model_version": version, "result": [], "task": task["id"]}
            task["predictions"].append(by_run[key])
        result = {"from_name": row["field"], "to_name": "item", "type": "number"}
        by_run[key]["result"].append({**result, "value": {"number": row["value"]}})


def label_config(store: Store, project: str) -> str:
    """A labeling config under which Label Studio opens the exported tasks: the item's
    first text column shown as ``item``, one control per human field."""
    from xml.sax.saxutils import quoteattr

    info = store.project(project)
    columns = info.task_kind.item_fields
    first = columns[0].name if columns else "text"
    lines = ["<View>", f'  <Text name="item" value={quoteattr("$" + str(first))}/>']
    for f in info.task_kind.human_fields(info.settings):
        lines += f.question_type.label_studio_control(f, quoteattr(f.name))
    return "\n".join([*lines, "</View>", ""])


def config_file(path: Path) -> Path:
    """Where the export's labeling config is written."""
    return path.with_name(f"{path.stem}.label_config.xml")


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write a Label Studio JSON export, its labeling config and its user ids; returns the
    number of tasks."""
    data, ids = tasks(store, project, with_labels=what == "annotations", notes=notes)
    path = Path(out)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    config_file(path).write_text(label_config(store, project), encoding="utf-8")
    if ids:
        names = {str(n): name for name, n in ids.items()}
        users_file(path).write_text(json.dumps(names, ensure_ascii=False, indent=1), "utf-8")
    return len(data)
