"""What the Langfuse and LangSmith score exports share: reading, and the native rows."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from interop.base import read_json_records


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON / JSON lines export, or a CSV one (JSON cells decoded)."""
    if path.suffix.lower() == ".csv":
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
        return [{k: _cell(v) for k, v in r.items()} for r in rows]
    return read_json_records(path, path.name)


def _cell(value: str | None) -> Any:
    if value in (None, ""):
        return None
    if value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def metadata(record: dict[str, Any], key: str = "metadata") -> dict[str, Any]:
    """A record's metadata object (``{}`` when absent)."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def write_records(rows: list[dict[str, Any]], out: str | Path) -> int:
    """Write records as a JSON array (.json), JSON lines (.jsonl) or CSV (objects as JSON)."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    elif suffix == ".json":
        text = json.dumps(rows, ensure_ascii=False, indent=1)
    elif suffix == ".csv":
        buf = io.StringIO()
        columns = list(dict.fromkeys(k for r in rows for k in r))
        writer = csv.DictWriter(buf, fieldnames=columns)
        writer.writeheader()
        for r in rows:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in r.items()}
            )
        text = buf.getvalue()
    else:
        raise ValueError("score export: use .json, .jsonl or .csv")
    path.write_text(text, encoding="utf-8")
    return len(rows)


def label_frames(store: Any, project: str, what: str) -> list[dict[str, Any]]:
    """Submitted labels (``annotations``) or evaluator scores (``scores``) as plain rows."""
    from annotation_store.exporting import annotations_export_frame, scores_export_frame
    from interop.frames import records

    if what == "annotations":
        return [
            r
            for r in records(annotations_export_frame(store, project))
            if r["status"] == "submitted"
        ]
    return records(scores_export_frame(store, project))
