"""Langfuse score exports (API ``GET /api/public/scores`` JSON, or the UI's CSV/JSON).

Written from Langfuse's documented score object (the SDK, langfuse 5.0.4, brings an
OpenTelemetry stack and talks to a server; a score file needs neither):
``traceId``, ``name``, ``value`` / ``stringValue``, ``dataType`` (NUMERIC, BOOLEAN,
CATEGORICAL), ``source`` (API, EVAL, ANNOTATION), ``authorUserId``, ``metadata``. The
trace id is the item id and the score name the field. Imported as evaluator scores, the
evaluator is ``metadata.evaluator`` (else ``langfuse``); as human labels, the annotator
is ``authorUserId`` (else ``metadata.annotator``). snake_case keys are accepted too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import Converted, existing, fail
from interop.scores_common import (
    add_routed,
    each_record,
    label_frames,
    metadata,
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
    for where, record in each_record(p, "score"):
        meta = metadata(record)
        data_type = str(_get(record, "dataType", "data_type") or "NUMERIC").upper()
        value = record.get("value")
        shown = _get(record, "stringValue", "string_value") if data_type == "CATEGORICAL" else value
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
    return out


def _label_score(row: dict[str, Any]) -> dict[str, Any]:
    value = row["value"]
    score: dict[str, Any] = {"traceId": row["item_id"], "name": row["field"]}
    if isinstance(value, str | list):
        text = value if isinstance(value, str) else json.dumps(value)
        score.update(value=None, stringValue=text, dataType="CATEGORICAL")
    else:
        score.update(value=value, dataType="NUMERIC")
    return {**score, "source": "ANNOTATION", "authorUserId": row["annotator"]}


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write human labels (source ANNOTATION) or evaluator scores (source EVAL)."""
    rows = []
    for n, row in enumerate(label_frames(store, project, what, notes), start=1):
        if what == "annotations":
            rows.append({"id": f"label-{n}", **_label_score(row)})
            continue
        meta = {"evaluator": row["evaluator"], "judge_model": row["judge_model"], "run": row["run"]}
        rows.append(
            {
                "id": f"score-{n}",
                "traceId": row["item_id"],
                "name": row["field"],
                "value": row["value"],
                "dataType": "NUMERIC",
                "source": "EVAL",
                "metadata": meta,
            }
        )
    if not rows:
        raise fail(Path(out).name, "the project", f"has no {what} to export")
    return write_records(rows, out)
