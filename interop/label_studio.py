"""Label Studio's JSON export: tasks with ``data`` and per-annotator ``annotations``.

Written from Label Studio's documented export schema (the SDK, label-studio-sdk 2.1.2,
does not install next to this project's pins, and a file needs no server to read):
``[{"id": 1, "data": {...}, "annotations": [{"completed_by": ..., "result": [...]}]}]``.
A result's ``from_name`` is the workbench field; its ``type`` says where the value is:
``choices`` (``{"choices": ["yes"]}``), ``rating`` (``{"rating": 4}``), ``number``
(``{"number": 0.6}``) or ``textarea`` (``{"text": ["..."]}``, also used for fact lists
as JSON). ``data.item_id`` is the item id (else the task id). The annotator is
``completed_by.email`` (or ``ls-user-<id>`` for a bare user id). Cancelled annotations
(``was_cancelled``) are imported as skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import Converted, Tagged, existing, fail, label, read_json_records
from kinds import FieldType

if TYPE_CHECKING:
    from annotation_store import Store
    from kinds import HumanField

WRITES = ("items", "annotations")


def _annotator(completed_by: Any) -> str | None:
    if isinstance(completed_by, dict):
        return (
            completed_by.get("email")
            or completed_by.get("username")
            or (f"ls-user-{completed_by['id']}" if "id" in completed_by else None)
        )
    if isinstance(completed_by, int | str) and str(completed_by).strip():
        return f"ls-user-{completed_by}"
    return None


def _result_value(result: dict[str, Any]) -> Any:
    kind = result.get("type")
    value = result.get("value") or {}
    if kind == "choices":
        choices = value.get("choices") or []
        return choices[0] if len(choices) == 1 else choices
    if kind in ("rating", "number"):
        return value.get(kind)
    if kind == "textarea":
        return "\n".join(value.get("text") or [])
    raise ValueError(f"result type {kind!r} is not supported (choices, rating, number, textarea)")


def read(path: str | Path) -> Converted:
    """Items and labels of a Label Studio JSON export."""
    p = existing(path)
    out = Converted(p.name)
    for index, task in enumerate(read_json_records(p, p.name), start=1):
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise fail(p.name, f"task {index}", "a task needs a 'data' object")
        data = dict(task["data"])
        item_id = data.pop("item_id", None) or task.get("id")
        where = f"task {index} (id {task.get('id')})"
        out.items.append(Tagged(where, {"item_id": item_id, **data}))
        for a_index, ann in enumerate(task.get("annotations") or [], start=1):
            annotator = _annotator(ann.get("completed_by"))
            if annotator is None:
                raise fail(p.name, f"{where}, annotation {a_index}", "no completed_by")
            status = "skipped" if ann.get("was_cancelled") else "submitted"
            for result in ann.get("result") or []:
                field = result.get("from_name")
                at = f"{where}, annotation {a_index}, result {field!r}"
                out.annotations.append(
                    label(
                        p.name,
                        at,
                        lambda r=result: _result_value(r),
                        item_id=item_id,
                        annotator=annotator,
                        field=field,
                        status=status,
                    )
                )
    return out


def _result(field: HumanField, value: Any) -> dict[str, Any]:
    base = {"from_name": field.name, "to_name": "item"}
    if field.type is FieldType.FACT_LABELS:
        return {**base, "type": "textarea", "value": {"text": [json.dumps(value)]}}
    if field.type is FieldType.BINARY:
        return {**base, "type": "choices", "value": {"choices": ["yes" if value else "no"]}}
    if field.type is FieldType.CATEGORICAL:
        return {**base, "type": "choices", "value": {"choices": [str(value)]}}
    if isinstance(value, int):
        return {**base, "type": "rating", "value": {"rating": value}}
    return {**base, "type": "number", "value": {"number": value}}


def tasks(store: Store, project: str, with_labels: bool = True) -> list[dict[str, Any]]:
    """The project as Label Studio tasks (one annotation per annotator and item)."""
    from annotation_store.exporting import annotations_export_frame, items_frame
    from interop.frames import records

    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    tasks_by_item: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(records(items_frame(store, project)), start=1):
        data = {k: v for k, v in row.items() if v is not None}
        tasks_by_item[row["item_id"]] = {"id": n, "data": data, "annotations": []}
    if with_labels:
        grouped: dict[tuple[str, str], dict[str, Any]] = {}
        for row in records(annotations_export_frame(store, project)):
            if row["status"] == "draft":
                continue
            key = (row["item_id"], row["annotator"])
            ann = grouped.get(key)
            if ann is None:
                ann = grouped[key] = {
                    "id": len(grouped) + 1,
                    "completed_by": {"email": row["annotator"]},
                    "was_cancelled": row["status"] == "skipped",
                    "result": [],
                }
                tasks_by_item[row["item_id"]]["annotations"].append(ann)
            ann["result"].append(_result(fields[row["field"]], row["value"]))
    return list(tasks_by_item.values())


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write a Label Studio JSON export; returns the number of tasks."""
    data = tasks(store, project, with_labels=what == "annotations")
    Path(out).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return len(data)
