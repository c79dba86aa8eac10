"""What the Langfuse and LangSmith score exports share: reading, and the native rows."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from interop.base import Converted, Tagged, fail, read_json_records


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON / JSON lines export, or a CSV one (JSON cells decoded)."""
    if path.suffix.lower() == ".csv":
        text = path.read_text(encoding="utf-8-sig")
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
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


#: Namespace of the UUIDs exports derive (the same row gets the same id every time).
_NAMESPACE = uuid.UUID("0d9f3c52-6a8e-4f0b-9a51-3e7c2b1d4f60")


def stable_uuid(*parts: Any) -> str:
    """A UUID (version 5) naming what ``parts`` describe."""
    return str(uuid.uuid5(_NAMESPACE, json.dumps([str(p) for p in parts])))


def exported_at(stamp: Any = None) -> str:
    """``stamp`` (a stored time, naive meaning UTC; else now) as ISO 8601 UTC text, the
    way the tools' records carry times."""
    try:
        when = datetime.fromisoformat(str(stamp)) if stamp else datetime.now(UTC)
    except ValueError:
        when = datetime.now(UTC)
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


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
        import pandas as pd

        from common.csv_safe import to_csv

        columns = list(dict.fromkeys(k for r in rows for k in r))
        cells = [
            {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in r.items()}
            for r in rows
        ]
        text = to_csv(pd.DataFrame(cells, columns=columns, dtype=object)) or ""
    else:
        raise ValueError("score export: use .json, .jsonl or .csv")
    path.write_text(text, encoding="utf-8")
    return len(rows)


def label_frames(
    store: Any, project: str, what: str, notes: list[str] | None = None
) -> list[dict[str, Any]]:
    """Submitted labels (``annotations``) or evaluator scores (``scores``) as plain rows;
    drafts and skips, which a score record cannot mark, are counted in ``notes``."""
    from interop.exporting import annotations_export_frame, scores_export_frame
    from interop.frames import records

    if what != "annotations":
        return records(scores_export_frame(store, project))
    rows = records(annotations_export_frame(store, project))
    left_out = Counter(r["status"] for r in rows if r["status"] != "submitted")
    if notes is not None:
        notes.extend(
            f"{n} {status} labels not exported (a score record has no status)"
            for status, n in sorted(left_out.items())
        )
    return [r for r in rows if r["status"] == "submitted"]


def each_record(path: Path, noun: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, record)`` for every record, ``where`` naming it (``score 3 (id s3)``)."""
    for index, record in enumerate(read_records(path), start=1):
        if not isinstance(record, dict):
            raise fail(path.name, f"{noun} {index}", f"each {noun} must be an object")
        yield f"{noun} {index} (id {record.get('id')})", record


#: The metadata keys the imports read (the rest is named in a note).
READ_METADATA = frozenset({"evaluator", "judge_model", "run", "annotator"})


def choice_detail(comment: Any) -> dict[str, Any] | None:
    """The whole answer a categorical score's comment carries (the exports write a
    pairwise choice's order shown and strength there), or None."""
    if not isinstance(comment, str) or not comment.startswith("{"):
        return None
    try:
        detail = json.loads(comment)
    except json.JSONDecodeError:
        return None
    return detail if isinstance(detail, dict) and "choice" in detail else None


def answer_and_comment(value: Any, comment: Any) -> tuple[Any, Any]:
    """A categorical answer with the detail its comment carries (that comment is then
    read), else the value and the comment as they are."""
    detail = choice_detail(comment)
    if detail is not None and detail.get("choice") == value:
        return detail, None
    return value, comment


def choice_score(value: Any) -> tuple[str, str] | None:
    """A choice between outputs (a pairwise answer) as a category and the comment that
    keeps the rest of it (order shown, strength), or None for any other answer."""
    if isinstance(value, dict) and isinstance(value.get("choice"), str):
        return value["choice"], json.dumps(value, ensure_ascii=False)
    return None


class Unread:
    """What the records carry that no label or score keeps: counted for the notes."""

    def __init__(self) -> None:
        self.comments = 0
        self.keys: Counter[str] = Counter()

    def add(self, comment: Any, *metadata: dict[str, Any], read: frozenset[str] = READ_METADATA):
        """Count a comment left unread and the metadata keys not among ``read``."""
        self.comments += bool(isinstance(comment, str) and comment.strip())
        for meta in metadata:
            self.keys.update(k for k, v in meta.items() if k not in read and v is not None)

    def notes(self, out: Converted) -> None:
        """One note per kind of thing not imported."""
        if self.comments:
            out.notes.append(
                f"{self.comments} comments not imported (a workbench label or score keeps none)"
            )
        if self.keys:
            keys = ", ".join(f"{k} ({n})" for k, n in sorted(self.keys.items()))
            out.notes.append(f"metadata not imported: {keys} (a label or score keeps none)")


def add_routed(
    out: Converted, where: str, base: dict[str, Any], meta: dict[str, Any], human: bool | None
) -> None:
    """Route a record by its source: a person's score (``human``) becomes a label, a
    model's or an API's an evaluator score; a record that names no source is read both
    ways and the import keeps the one asked for. ``base`` has item_id, field, evaluator,
    annotator, score and label; ``meta`` may name the judge model and the run."""
    common = {"item_id": base["item_id"], "field": base["field"]}
    if human is not True:
        run = {"judge_model": meta.get("judge_model"), "run": meta.get("run", 0)}
        score = {"evaluator": meta.get("evaluator") or base["evaluator"], "value": base["score"]}
        out.scores.append(Tagged(where, {**common, **score, **run}))
    if human is not False:
        person = {"annotator": base["annotator"], "value": base["label"]}
        out.annotations.append(Tagged(where, {**common, **person}))
