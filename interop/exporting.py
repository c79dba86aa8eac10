"""Export items, labels and evaluator scores as CSV, JSONL or Parquet.

Exports round-trip: an exported file imports back into a project of the same kind and
gives the same data. In CSV and Parquet, lists and objects are written as JSON text (the
importer reads them back); JSONL keeps them native. CSV cells that a spreadsheet
would run as a formula get a leading quote (:mod:`common.csv_safe`); JSONL and Parquet
stay exact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from annotation_store.store import Store
from common.csv_safe import csv_bytes

FORMATS = (".csv", ".jsonl", ".parquet")


def items_frame(store: Store, project: str) -> pd.DataFrame:
    """Items as rows: item_id, split, then every field (generator included)."""
    rows = []
    for item in store.items(project):
        row: dict[str, Any] = {"item_id": item.item_id, "split": item.split}
        row.update(item.fields)
        if item.generator is not None:
            row.setdefault("generator", item.generator)
        rows.append(row)
    return pd.DataFrame(rows)


def annotations_export_frame(store: Store, project: str) -> pd.DataFrame:
    """Labels in long form, every status, with guideline version and time."""
    df = store.annotations_frame(project, statuses=("draft", "submitted", "skipped"))
    df["updated_at"] = df["updated_at"].astype(str)
    return df[
        ["item_id", "annotator", "field", "value", "status", "guideline_version", "updated_at"]
    ]


def scores_export_frame(store: Store, project: str) -> pd.DataFrame:
    """Evaluator scores in the import's long form plus the run's signature."""
    df = store.scores_frame(project)
    out = pd.DataFrame(
        {
            "item_id": df["item_id"],
            "evaluator": df["evaluator"],
            "field": df["field"],
            "value": df["score"],
            "judge_model": df["model"],
            "run": df["run_index"],
            "signature": df["signature"],
        }
    )
    return out


FRAMES = {
    "items": items_frame,
    "annotations": annotations_export_frame,
    "scores": scores_export_frame,
}


def _jsonify(value: Any) -> Any:
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def frame_bytes(df: pd.DataFrame, suffix: str) -> bytes:
    """Serialise a frame in the format named by ``suffix`` (.csv, .jsonl, .parquet)."""
    suffix = suffix.lower()
    if suffix == ".jsonl":
        records = df.astype(object).where(df.notna(), None).to_dict(orient="records")
        return "".join(
            json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records
        ).encode("utf-8")
    flat = df.astype(object).map(_jsonify)
    if suffix == ".csv":
        return csv_bytes(flat)
    if suffix == ".parquet":
        flat = flat.astype(
            {c: "string" for c in flat.columns if flat[c].map(lambda v: isinstance(v, str)).any()}
        )
        return flat.to_parquet(index=False)
    raise ValueError(f"unknown export format {suffix!r}: use one of {FORMATS}")


def export(store: Store, project: str, what: str, out: str | Path) -> int:
    """Write ``what`` (items / annotations / scores) of a project to ``out``; returns rows."""
    if what not in FRAMES:
        raise ValueError(f"cannot export {what!r}: use one of {sorted(FRAMES)}")
    df = FRAMES[what](store, project)
    path = Path(out)
    data = frame_bytes(df, path.suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(df)
