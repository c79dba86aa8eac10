"""Potato's annotation output, as potato-annotation 2.12.1 writes it.

Two shapes are read (the fixtures in tests/data/peers/potato are written by Potato's own
``UserState.save`` and ``JSONLExporter``, scripts/make_peer_fixtures.py):

- the output folder, ``<output_dir>/<user>/user_state.json``: ``user_id`` and
  ``instance_id_to_label_to_value``, per instance a list of ``[{"schema", "name"}, value]``
  pairs (or, from older servers, a ``{schema: {name: value}}`` object);
- the ``jsonl`` exporter's ``annotations.jsonl``: one line per user and instance with
  ``instance_id``, ``user_id``, ``labels`` (``{schema: {name: value}}``), ``spans``, ``links``.

A scheme is a workbench field. A radio choice is the chosen label's name, a Likert point is
named ``"1"``..``"size"`` (read as an integer), a text box is ``{"text_box": text}``.
Instances carry ids only, so the items must exist already; import annotations. Spans and
links have no workbench field: they are counted in the import notes.

The export writes both: one ``<user>/user_state.json`` per annotator (the folder name is
the user id made safe as one path part; the id itself is kept inside the file) and the
``annotations.jsonl`` Potato's exporter would write. Drafts and skips have no place in a
Potato state: they are counted in the export notes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from interop.base import Converted, existing, fail, label

if TYPE_CHECKING:
    from annotation_store import Store
    from kinds import HumanField

WRITES = ("annotations",)
STATE_FILE = "user_state.json"
EXPORT_FILE = "annotations.jsonl"
_SCALE = re.compile(r"(?:scale_)?(\d+)$")


def _scheme_value(labels: Any) -> Any:
    if not isinstance(labels, dict) or not labels:
        raise ValueError("a scheme's annotation must be a non-empty object")
    if "text_box" in labels:
        return labels["text_box"]
    chosen = [k for k, v in labels.items() if v not in (False, None, "", "false", 0)]
    if len(chosen) != 1:
        raise ValueError(f"expected one chosen label, found {len(chosen)}")
    point = _SCALE.match(chosen[0])
    return int(point.group(1)) if point else chosen[0]


def _as_schemes(raw: Any) -> dict[str, Any]:
    """``{schema: {name: value}}`` from either stored shape (as Potato's own loader does)."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, list):
        raise ValueError("an instance's labels must be a list of pairs or an object")
    schemes: dict[str, dict[str, Any]] = {}
    for entry in raw:
        if not (isinstance(entry, list | tuple) and len(entry) == 2 and isinstance(entry[0], dict)):
            raise ValueError('each label must be a [{"schema", "name"}, value] pair')
        schemes.setdefault(str(entry[0].get("schema", "")), {})[str(entry[0].get("name"))] = entry[
            1
        ]
    return schemes


def _add(out: Converted, where: str, item_id: Any, user: str, raw: Any) -> None:
    try:
        schemes = _as_schemes(raw)
    except ValueError as exc:
        raise fail(out.display, where, str(exc)) from None
    for scheme, chosen in schemes.items():
        at = f"{where}, scheme {scheme!r}"
        row = {"item_id": item_id, "annotator": user, "field": scheme}
        out.annotations.append(label(out.display, at, lambda c=chosen: _scheme_value(c), **row))


def _read_json(display: str, where: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise fail(display, where, f"not valid JSON ({exc.msg})") from None


def _read_states(out: Converted, files: list[Path], extras: Counter[str]) -> None:
    for file in files:
        where = f"user folder {file.parent.name!r}"
        state = _read_json(out.display, where, file.read_text(encoding="utf-8-sig"))
        if not isinstance(state, dict):
            raise fail(out.display, where, f"{STATE_FILE} must be an object")
        user = str(state.get("user_id") or file.parent.name)
        by_instance = state.get("instance_id_to_label_to_value") or {}
        if not isinstance(by_instance, dict):
            raise fail(out.display, where, "instance_id_to_label_to_value must be an object")
        for item_id, raw in by_instance.items():
            _add(out, f"{where}, instance {item_id!r}", item_id, user, raw)
        spans = state.get("instance_id_to_span_to_value") or {}
        if isinstance(spans, dict):
            extras["spans"] += sum(1 for v in spans.values() if v)


def _read_export(out: Converted, file: Path, extras: Counter[str]) -> None:
    for number, line in enumerate(file.read_text(encoding="utf-8-sig").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        record = _read_json(out.display, where, line)
        if not isinstance(record, dict):
            raise fail(out.display, where, "each line must be an object")
        item_id, user = record.get("instance_id"), str(record.get("user_id") or "")
        _add(out, f"{where} (instance {item_id!r})", item_id, user, record.get("labels") or {})
        for extra in ("spans", "links"):
            if record.get(extra):
                extras[extra] += 1


def read(path: str | Path) -> Converted:
    """Labels of a Potato output folder, one ``user_state.json``, or an
    ``annotations.jsonl`` export (or a folder holding one)."""
    root = existing(path)
    out = Converted(root.name)
    extras: Counter[str] = Counter()
    states = [root] if root.name == STATE_FILE else sorted(root.glob(f"*/{STATE_FILE}"))
    if root.is_dir() and not states and (root / EXPORT_FILE).is_file():
        root = root / EXPORT_FILE
    if states and root.is_dir() or root.name == STATE_FILE:
        _read_states(out, states, extras)
    elif root.is_file():
        _read_export(out, root, extras)
    else:
        raise fail(out.display, "the folder", f"no <user>/{STATE_FILE} or {EXPORT_FILE} inside")
    for extra, n in sorted(extras.items()):
        if not n:
            continue
        out.notes.append(f"{n} annotated instances carry Potato {extra}, which are not imported")
    return out


def _labels(field: HumanField, value: Any) -> dict[str, str]:
    """``{label name: value}`` as Potato's form stores it for this field."""
    return field.question_type.potato_labels(field, value)


def folder_name(user: str) -> str:
    """One safe path part for a user id: path separators, ``..`` and the like escaped."""
    name = quote(user, safe=" @+-_,=")
    return name if name.strip(". ") else name.replace(".", "%2E") or "%00"


def _state(user: str, labels: dict[str, dict[str, dict[str, str]]]) -> dict[str, Any]:
    """A ``user_state.json`` as ``UserState.to_json`` writes it (the keys its loader reads)."""
    pairs = {
        iid: [
            [{"schema": s, "name": n}, v] for s, named in schemes.items() for n, v in named.items()
        ]
        for iid, schemes in labels.items()
    }
    return {
        "user_id": user,
        "instance_id_ordering": list(labels),
        "current_instance_index": max(len(labels) - 1, 0),
        "current_phase_and_page": ["UserPhase.DONE", "annotation"],
        "completed_phase_and_pages": [],
        "max_assignments": -1,
        "instance_id_to_behavioral_data": {},
        "instance_id_to_label_to_value": pairs,
        "instance_id_to_span_to_value": {},
        "phase_to_page_to_label_to_value": {},
        "phase_to_page_to_span_to_value": {},
    }


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write ``<user>/user_state.json`` per annotator and ``annotations.jsonl`` (submitted
    labels); drafts and skips are counted in ``notes``. Returns the user-instance pairs."""
    from annotation_store.exporting import annotations_export_frame
    from interop.frames import records

    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    by_user: dict[str, dict[str, dict[str, dict[str, str]]]] = {}
    left_out: Counter[str] = Counter()
    for row in records(annotations_export_frame(store, project)):
        if row["status"] != "submitted":
            left_out[row["status"]] += 1
            continue
        instance = by_user.setdefault(row["annotator"], {}).setdefault(row["item_id"], {})
        instance[row["field"]] = _labels(fields[row["field"]], row["value"])
    folders = {user: folder_name(user) for user in by_user}
    if len(set(folders.values())) < len(folders):
        raise ValueError("two annotator names map to one Potato user folder")
    root = Path(out)
    lines = []
    for user, instances in by_user.items():
        folder = root / folders[user]
        folder.mkdir(parents=True, exist_ok=True)
        state = json.dumps(_state(user, instances), ensure_ascii=False, indent=2)
        (folder / STATE_FILE).write_text(state, encoding="utf-8")
        for iid, schemes in instances.items():
            record = {"instance_id": iid, "user_id": user, "labels": schemes}
            lines.append(json.dumps({**record, "spans": {}, "links": {}}, ensure_ascii=False))
    root.mkdir(parents=True, exist_ok=True)
    (root / EXPORT_FILE).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    if notes is not None:
        notes.extend(
            f"{n} {status} labels not exported (Potato keeps no {status} labels)"
            for status, n in sorted(left_out.items())
        )
    return sum(len(instances) for instances in by_user.values())
