"""Argilla records as a Hugging Face ``datasets`` table (Parquet, JSON lines or Arrow).

This is the flat layout Argilla 2's ``dataset.records.to_datasets()`` produces and
``rg.Dataset.from_hub`` reads: one row per record with ``id``, the record's fields as
columns, and per question ``<q>.responses`` (values), ``<q>.responses.users`` and
``<q>.responses.status`` (``submitted`` / ``draft`` / ``discarded``). A question is a
workbench field; a record is an item. Files are written with the ``datasets`` package's
own writers (``to_parquet``, ``to_json``, ``save_to_disk`` for a folder); nothing goes
near the Hub. The argilla client itself (argilla 2.8.0) needs a server for records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import Converted, Tagged, existing, fail

if TYPE_CHECKING:
    from annotation_store import Store

WRITES = ("items", "annotations")
#: Columns Argilla adds that are not item fields.
RECORD_META = {"id", "status", "_server_id", "inserted_at", "updated_at", "metadata"}
STATUS_IN = {"submitted": "submitted", "draft": "draft", "discarded": "skipped"}
STATUS_OUT = {v: k for k, v in STATUS_IN.items()}


def _rows(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        from datasets import load_from_disk

        return load_from_disk(str(path)).to_list()
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    if path.suffix.lower() in (".jsonl", ".json"):
        rows = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise fail(path.name, f"line {number}", f"not valid JSON ({exc.msg})") from None
        return rows
    raise fail(path.name, "the file", "use .parquet, .jsonl or a save_to_disk folder")


def read(path: str | Path) -> Converted:
    """Items (the records) and labels (their responses)."""
    p = existing(path)
    out = Converted(p.name)
    for index, record in enumerate(_rows(p), start=1):
        item_id = record.get("id")
        where = f"record {index} (id {item_id})"
        questions = {k.split(".", 1)[0] for k in record if k.endswith(".responses")}
        fields = {
            k: v
            for k, v in record.items()
            if "." not in k and k not in RECORD_META and k not in questions and v is not None
        }
        out.items.append(Tagged(where, {"item_id": item_id, **fields}))
        for q in sorted(questions):
            values = record.get(f"{q}.responses") or []
            users = record.get(f"{q}.responses.users") or []
            statuses = record.get(f"{q}.responses.status") or ["submitted"] * len(values)
            if not len(values) == len(users) == len(statuses):
                raise fail(
                    p.name, f"{where}, question {q!r}", "responses, users, status differ in length"
                )
            for value, user, status in zip(values, users, statuses, strict=True):
                at = f"{where}, question {q!r}, user {user}"
                if status not in STATUS_IN:
                    raise fail(p.name, at, f"unknown response status {status!r}")
                row = {"item_id": item_id, "annotator": str(user), "field": q, "value": value}
                out.annotations.append(Tagged(at, {**row, "status": STATUS_IN[status]}))
    return out


def records(store: Store, project: str, with_labels: bool = True) -> list[dict[str, Any]]:
    """The project as Argilla records (flat ``datasets`` rows)."""
    from annotation_store.exporting import annotations_export_frame, items_frame
    from interop.frames import records as frame_records

    info = store.project(project)
    names = [f.name for f in info.task_kind.human_fields(info.settings)]
    rows = {
        r["item_id"]: {"id": r.pop("item_id"), **r}
        for r in frame_records(items_frame(store, project))
    }
    if with_labels:
        for row in rows.values():
            for q in names:
                row[f"{q}.responses"], row[f"{q}.responses.users"] = [], []
                row[f"{q}.responses.status"] = []
        for label in frame_records(annotations_export_frame(store, project)):
            row = rows[label["item_id"]]
            q = label["field"]
            row[f"{q}.responses"].append(label["value"])
            row[f"{q}.responses.users"].append(label["annotator"])
            row[f"{q}.responses.status"].append(STATUS_OUT[label["status"]])
    for row in rows.values():
        row["status"] = "completed" if any(row.get(f"{q}.responses") for q in names) else "pending"
    return list(rows.values())


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write the records with ``datasets``: .parquet, .jsonl, or a folder (Arrow)."""
    from datasets import Dataset

    rows = records(store, project, with_labels=what == "annotations")
    dataset = Dataset.from_list(rows)
    path = Path(out)
    if path.suffix.lower() == ".parquet":
        dataset.to_parquet(str(path))
    elif path.suffix.lower() in (".jsonl", ".json"):
        dataset.to_json(str(path), lines=True, force_ascii=False)
    elif path.suffix == "":
        dataset.save_to_disk(str(path))
    else:
        raise ValueError("argilla export: use .parquet, .jsonl or a folder name")
    return len(rows)
