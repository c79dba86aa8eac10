"""Potato's annotation output: ``annotation_output/<user>/annotated_instances.jsonl``.

Written from Potato's documented output (potato-annotation 2.12.1 is a Flask server; it
writes these files as people annotate, with no library call to produce them). One line
per instance a user annotated: ``{"id": ..., "label_annotations": {scheme: {label: value}}}``.
A scheme is a workbench field: ``{"yes": true}`` (radio: the chosen label),
``{"scale_4": "4"}`` (likert), ``{"text_box": "0.6"}`` (text or number). Instances carry
ids only, so the items must exist already; import annotations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import Converted, existing, fail, label
from kinds import FieldType

if TYPE_CHECKING:
    from annotation_store import Store
    from kinds import HumanField

WRITES = ("annotations",)
FILE_NAME = "annotated_instances.jsonl"
_SCALE = re.compile(r"scale_(\d+)$")


def _scheme_value(labels: Any) -> Any:
    if not isinstance(labels, dict) or not labels:
        raise ValueError("a scheme's annotation must be a non-empty object")
    if "text_box" in labels:
        return labels["text_box"]
    chosen = [k for k, v in labels.items() if v not in (False, None, "", "false", 0)]
    if len(chosen) != 1:
        raise ValueError(f"expected one chosen label, found {len(chosen)}")
    scale = _SCALE.match(chosen[0])
    return int(scale.group(1)) if scale else chosen[0]


def _files(root: Path) -> list[tuple[str, Path]]:
    if root.is_file():
        return [(root.parent.name, root)]
    found = sorted(root.glob(f"*/{FILE_NAME}"))
    return [(f.parent.name, f) for f in found]


def read(path: str | Path) -> Converted:
    """Labels of a Potato output folder (or one user's ``annotated_instances.jsonl``)."""
    root = existing(path)
    out = Converted(root.name)
    files = _files(root)
    if not files:
        raise fail(root.name, "the folder", f"no <user>/{FILE_NAME} inside")
    for user, file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"user {user}, line {number}"
            try:
                instance = json.loads(line)
            except json.JSONDecodeError as exc:
                raise fail(root.name, where, f"not valid JSON ({exc.msg})") from None
            annotator = instance.get("user") or user
            item_id = instance.get("id")
            for scheme, chosen in (instance.get("label_annotations") or {}).items():
                at = f"{where} (id {item_id}), scheme {scheme!r}"
                convert = lambda c=chosen: _scheme_value(c)  # noqa: E731
                out.annotations.append(
                    label(
                        root.name, at, convert, item_id=item_id, annotator=annotator, field=scheme
                    )
                )
    return out


def _labels(field: HumanField, value: Any) -> dict[str, Any]:
    if field.type is FieldType.BINARY:
        return {"yes" if value else "no": True}
    if field.type is FieldType.CATEGORICAL:
        return {str(value): True}
    if field.type is FieldType.ORDINAL and isinstance(value, int):
        return {f"scale_{value}": str(value)}
    if field.type is FieldType.FACT_LABELS:
        return {"text_box": json.dumps(value)}
    return {"text_box": str(value)}


def write(store: Store, project: str, what: str, out: str | Path) -> int:
    """Write one ``<user>/annotated_instances.jsonl`` per annotator (submitted labels)."""
    from annotation_store.exporting import annotations_export_frame
    from interop.frames import records

    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    by_user: dict[str, dict[str, dict[str, Any]]] = {}
    for row in records(annotations_export_frame(store, project)):
        if row["status"] != "submitted":
            continue
        instance = by_user.setdefault(row["annotator"], {}).setdefault(
            row["item_id"], {"id": row["item_id"], "label_annotations": {}}
        )
        instance["label_annotations"][row["field"]] = _labels(fields[row["field"]], row["value"])
    root = Path(out)
    for user, instances in by_user.items():
        folder = root / user
        folder.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(i, ensure_ascii=False) for i in instances.values()]
        (folder / FILE_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sum(len(i) for i in by_user.values())
