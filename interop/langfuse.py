"""Langfuse score exports (API ``GET /api/public/scores`` JSON, or the UI's CSV/JSON).

Written from Langfuse's documented score object (the SDK, langfuse 5.0.4, brings an
OpenTelemetry stack and talks to a server; a score file needs neither):
``traceId``, ``name``, ``value`` / ``stringValue``, ``dataType`` (NUMERIC, BOOLEAN,
CATEGORICAL), ``source`` (API, EVAL, ANNOTATION), ``authorUserId``, ``metadata``. The
trace id is the item id and the score name the field. Imported as evaluator scores, the
evaluator is ``metadata.evaluator`` (else ``langfuse``); as human labels, the annotator
is ``authorUserId`` (else ``metadata.annotator``). snake_case keys are accepted too.
A pairwise answer is written as a CATEGORICAL score of its choice, the whole answer (order
shown, strength) as JSON in ``comment``, and read back whole; other comments and metadata
keys no label or score keeps are named in the import's notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import Converted, existing, fail
from interop.scores_common import (
    Unread,
    add_routed,
    answer_and_comment,
    choice_score,
    each_record,
    exported_at,
    label_frames,
    metadata,
    stable_uuid,
    write_records,
)

if TYPE_CHECKING:
    from annotation_store import Store

WRITES = ("annotations", "scores")
DEFAULT_EVALUATOR = "langfuse"
#: ``source`` values: ANNOTATION is a person's score (a label); EVAL and API a model's.


def _get(record: dict[str, Any], camel: str, snake: str) -> Any:
    return record.get(camel, record.get(snake))


def read(path: str | Path) -> Converted:
    """Each score both as an evaluator score and as a human label; the caller picks."""
    p = existing(path)
    out = Converted(p.name)
    unread = Unread()
    for where, record in each_record(p, "score"):
        meta = metadata(record)
        data_type = str(_get(record, "dataType", "data_type") or "NUMERIC").upper()
        value = record.get("value")
        text = _get(record, "stringValue", "string_value")
        shown = text if data_type in ("CATEGORICAL", "TEXT") else value
        if data_type == "BOOLEAN" and value is not None:
            shown = float(value) == 1.0
        shown, comment = answer_and_comment(shown, record.get("comment"))
        unread.add(comment, meta)
        annotator = _get(record, "authorUserId", "author_user_id") or meta.get("annotator")
        base = {
            "item_id": _get(record, "traceId", "trace_id"),
            "field": record.get("name"),
            "evaluator": DEFAULT_EVALUATOR,
            "annotator": annotator,
            "score": value,
            "label": shown,
        }
        source = str(record.get("source") or "").upper()
        add_routed(out, where, base, meta, {"ANNOTATION": True, "": None}.get(source, False))
    unread.notes(out)
    return out


def _label_score(row: dict[str, Any]) -> dict[str, Any]:
    value = row["value"]
    score: dict[str, Any] = {"traceId": row["item_id"], "name": row["field"]}
    choice = choice_score(value)
    if isinstance(value, bool):
        score.update(value=float(value), stringValue=str(value), dataType="BOOLEAN")
    elif choice is not None:
        # The category is the choice; the order shown and the strength ride in the comment.
        score.update(value=0.0, stringValue=choice[0], dataType="CATEGORICAL", comment=choice[1])
    elif isinstance(value, str | list | dict):
        # A categorical score's number comes from a score config on the server; with
        # none, Langfuse keeps 0 and the category in stringValue, which is what is read.
        text = value if isinstance(value, str) else json.dumps(value)
        score.update(value=0.0, stringValue=text, dataType="CATEGORICAL")
    else:
        score.update(value=value, dataType="NUMERIC")
    return {**score, "source": "ANNOTATION", "authorUserId": row["annotator"]}


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write human labels (source ANNOTATION) or evaluator scores (source EVAL) as
    Langfuse 5 ``Score`` objects (ids are UUIDs derived from what the score is about)."""
    rows = []
    now = exported_at()
    for row in label_frames(store, project, what, notes):
        when = exported_at(row["updated_at"]) if row.get("updated_at") else now
        stamp = {"timestamp": when, "createdAt": when, "updatedAt": when, "environment": "default"}
        if what == "annotations":
            uid = stable_uuid(project, row["item_id"], row["field"], "label", row["annotator"])
            rows.append({"id": uid, **_label_score(row), **stamp})
            continue
        meta = {"evaluator": row["evaluator"], "judge_model": row["judge_model"], "run": row["run"]}
        about = (row["item_id"], row["field"], row["evaluator"], row["judge_model"], row["run"])
        rows.append(
            {
                "id": stable_uuid(project, *about),
                "traceId": row["item_id"],
                "name": row["field"],
                "value": row["value"],
                "dataType": "NUMERIC",
                "source": "EVAL",
                "metadata": meta,
                **stamp,
            }
        )
    if not rows:
        raise fail(Path(out).name, "the project", f"has no {what} to export")
    return write_records(rows, out)
