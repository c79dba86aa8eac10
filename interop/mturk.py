"""Amazon Mechanical Turk batch results: the CSV a requester downloads for a batch.

One row per assignment: ``HITId``, ``AssignmentId``, ``WorkerId``, ``AssignmentStatus``
(Submitted / Approved / Rejected), ``WorkTimeInSeconds``, the HIT's inputs as
``Input.<name>`` and the worker's answers as ``Answer.<name>``. What each becomes:

- items: one per distinct input (``Input.item_id`` or ``Input.id`` is the item id when
  there is one, else a short hash of all the inputs; ``--map Input.<name>=item_id`` names
  another column); ``Input.<name>`` is item field ``<name>``. A batch over items the
  project already has needs only their id: those items are matched, never changed, and
  items the batch only names but the project lacks are listed in one line;
- labels: ``Answer.<name>`` is a label of field ``<name>`` (``--map`` renames it, with or
  without the ``Answer.`` prefix; several ``--map`` send several answers to several
  questions) by the worker (an external rater); a Crowd HTML radio group's ``Answer.<name>.<option>``
  columns (``true`` / ``false``) give the chosen option; whole numbers are read as numbers;
- ``WorkTimeInSeconds`` (else ``SubmitTime`` - ``AcceptTime``): the worker's time on task
  for the item, stored as the platform's time (not one the workbench measured);
- rejected assignments are kept out and counted in the import notes.

It writes nothing: results come from MTurk, not to it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from interop.base import Converted, Tagged, existing, fail

WRITES: tuple[str, ...] = ()
REQUIRED = ("HITId", "AssignmentId", "WorkerId", "AssignmentStatus")
ID_INPUTS = ("Input.item_id", "Input.id")
_TRUE = {"true", "on", "1", "yes"}


def _number(text: str) -> Any:
    """Whole numbers and decimals as numbers; anything else stays text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return value if value == value and abs(value) != float("inf") else text


def _answers(row: dict[str, str]) -> dict[str, Any]:
    """``{field: value}`` from the Answer columns (radio groups folded to the chosen one)."""
    plain: dict[str, Any] = {}
    groups: dict[str, list[str]] = {}
    for column, cell in row.items():
        if not column or not column.startswith("Answer."):
            continue
        name = column[len("Answer.") :]
        field, dot, option = name.partition(".")
        if dot:
            if (cell or "").strip().lower() in _TRUE:
                groups.setdefault(field, []).append(option)
            else:
                groups.setdefault(field, [])
        elif cell not in (None, ""):
            plain[name] = _number(cell.strip())
    for field, chosen in groups.items():
        if len(chosen) > 1:
            raise ValueError(f"answer {field!r} has {len(chosen)} options chosen")
        if chosen:
            plain[field] = _number(chosen[0])
    return plain


def _between(accepted: str | None, submitted: str | None) -> float | None:
    """Seconds from ``AcceptTime`` to ``SubmitTime`` as MTurk writes them ("Sat Nov 28
    11:24:09 PST 2026"; both in one time zone, which is dropped), or None."""

    def parse(text: str | None) -> datetime | None:
        parts = (text or "").split()
        if len(parts) != 6:
            return None
        try:
            return datetime.strptime(" ".join(parts[:4] + parts[5:]), "%a %b %d %H:%M:%S %Y")
        except ValueError:
            return None

    start, end = parse(accepted), parse(submitted)
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds()


def _item_id(inputs: dict[str, str]) -> str:
    for column in ID_INPUTS:
        if inputs.get(column):
            return inputs[column]
    digest = hashlib.sha1(json.dumps(inputs, sort_keys=True).encode("utf-8")).hexdigest()
    return f"mturk-{digest[:12]}"


def read(path: str | Path) -> Converted:
    """Items, labels and time on task of a batch results CSV."""
    p = existing(path)
    out = Converted(
        p.name,
        time_source="MTurk WorkTimeInSeconds",
        prefixes=("Answer.", "Input."),
        items_by_reference=True,
    )
    text = p.read_text(encoding="utf-8-sig")
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise fail(
            p.name, "the header", f"not an MTurk batch results file (no {', '.join(missing)})"
        )
    items: dict[str, Tagged] = {}
    rejected = 0
    for number, row in enumerate(reader, start=2):
        where = f"row {number} (assignment {row.get('AssignmentId')})"
        if None in row:
            raise fail(p.name, where, "more cells than header columns")
        if (row.get("AssignmentStatus") or "").strip().lower() == "rejected":
            rejected += 1
            continue
        inputs = {k: v for k, v in row.items() if k.startswith("Input.")}
        item_id = _item_id(inputs)
        fields = {k[len("Input.") :]: v for k, v in inputs.items() if k not in ID_INPUTS}
        items.setdefault(item_id, Tagged(where, {"item_id": item_id, **fields}))
        worker = (row.get("WorkerId") or "").strip()
        if not worker:
            raise fail(p.name, where, "no WorkerId")
        try:
            answers = _answers(row)
        except ValueError as exc:
            raise fail(p.name, where, str(exc)) from None
        for field, value in answers.items():
            at = f"{where}, answer {field!r}"
            out.annotations.append(
                Tagged(
                    at, {"item_id": item_id, "annotator": worker, "field": field, "value": value}
                )
            )
        seconds = _number((row.get("WorkTimeInSeconds") or "").strip())
        if not isinstance(seconds, int | float):
            seconds = _between(row.get("AcceptTime"), row.get("SubmitTime"))
            if seconds is not None:
                out.time_source = "MTurk SubmitTime - AcceptTime"
        if isinstance(seconds, int | float):
            out.seconds.append((item_id, worker, seconds))
    out.items = list(items.values())
    if rejected:
        out.notes.append(f"{rejected} rejected assignments kept out")
    return out
