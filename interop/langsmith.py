"""LangSmith feedback exports (``client.list_feedback`` records as JSON / JSON lines / CSV).

Written from LangSmith's documented feedback schema (``langsmith.schemas.Feedback``;
the SDK, langsmith 0.14.17, adds six packages for a test that needs none of its network
code): ``run_id``, ``trace_id``, ``key``, ``score`` (number or bool) or ``value``,
``comment``, ``feedback_source`` (``{"type": "model" | "api" | "app", "user_id",
"user_name", "metadata"}``). The run id (else the trace id) is the item id, the key the
field; the workbench's own exports keep the item id in ``extra.item_id`` (their run
ids are UUIDs, as LangSmith wants). As evaluator scores, the evaluator is ``feedback_source.metadata.evaluator`` (else
``langsmith``); as human labels, the annotator is ``feedback_source.user_name`` or
``user_id`` (else ``metadata.annotator``). A pairwise answer is written as its choice
(``value``) with the whole answer as JSON in ``comment``, and read back whole; other
comments and metadata keys (``feedback_source.metadata``, ``extra``) no label or score
keeps are named in the import's notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop import scores_common as common
from interop.base import Converted, existing, fail

if TYPE_CHECKING:
    from annotation_store import Store

DEFAULT_EVALUATOR = "langsmith"
WRITES = ("annotations", "scores")


def read(path: str | Path) -> Converted:
    """Each feedback both as an evaluator score and as a human label; the caller picks."""
    p = existing(path)
    out = Converted(p.name)
    unread = common.Unread()
    for where, record in common.each_record(p, "feedback"):
        source = common.metadata(record, "feedback_source")
        meta = common.metadata(source)
        value = record.get("score")
        if value is None:
            value = record.get("value")
        value, comment = common.answer_and_comment(value, record.get("comment"))
        unread.add(comment, meta)
        unread.add(None, common.metadata(record, "extra"), read=frozenset({"item_id"}))
        base = {
            "item_id": common.metadata(record, "extra").get("item_id")
            or record.get("run_id")
            or record.get("trace_id"),
            "field": record.get("key"),
            "evaluator": DEFAULT_EVALUATOR,
            "annotator": source.get("user_name") or source.get("user_id") or meta.get("annotator"),
            "score": value,
            "label": value,
        }
        kind = str(source.get("type") or "").lower()
        common.add_routed(out, where, base, meta, {"app": True, "": None}.get(kind, False))
    unread.notes(out)
    return out


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write human labels (source ``app``) or evaluator scores (source ``model``) as
    LangSmith ``Feedback`` records: ids, run and trace ids are UUIDs derived from the
    project and item, and ``extra.item_id`` keeps the item id they stand for."""
    rows = []
    now = common.exported_at()
    for row in common.label_frames(store, project, what, notes):
        value = row["value"]
        run_id = common.stable_uuid(project, row["item_id"])
        when = common.exported_at(row["updated_at"]) if row.get("updated_at") else now
        record: dict[str, Any] = {
            "run_id": run_id,
            "trace_id": run_id,
            "key": row["field"],
            "created_at": when,
            "modified_at": when,
        }
        choice = common.choice_score(value)
        if what == "annotations" and choice is not None:
            # The value is the choice; the order shown and the strength ride in the comment.
            record.update(
                id=common.stable_uuid(project, row["item_id"], row["field"], row["annotator"]),
                score=None,
                value=choice[0],
                comment=choice[1],
                feedback_source={"type": "app", "user_name": row["annotator"], "metadata": {}},
            )
        elif what == "annotations":
            scored = isinstance(value, int | float) and not isinstance(value, bool)
            record.update(
                id=common.stable_uuid(project, row["item_id"], row["field"], row["annotator"]),
                score=value if scored or isinstance(value, bool) else None,
                value=None
                if scored or isinstance(value, bool)
                else (value if isinstance(value, str) else json.dumps(value)),
                feedback_source={"type": "app", "user_name": row["annotator"], "metadata": {}},
            )
        else:
            meta = {
                "evaluator": row["evaluator"],
                "judge_model": row["judge_model"],
                "run": row["run"],
            }
            about = (row["item_id"], row["field"], row["evaluator"], row["judge_model"], row["run"])
            record.update(
                id=common.stable_uuid(project, *about),
                score=value,
                value=None,
                feedback_source={"type": "model", "metadata": meta},
            )
        rows.append({**record, "extra": {"item_id": row["item_id"]}})
    if not rows:
        raise fail(Path(out).name, "the project", f"has no {what} to export")
    return common.write_records(rows, out)
