"""Potato's annotation output, as potato-annotation 2.12.1 writes it.

Two shapes are read (the fixtures in tests/data/peers/potato are written by Potato's own
``UserState.save`` and ``JSONLExporter``, scripts/make_peer_fixtures.py):

- the output folder, ``<output_dir>/<user>/user_state.json``: ``user_id``,
  ``instance_id_to_label_to_value`` (per instance a list of ``[{"schema", "name"}, value]``
  pairs, or, from older servers, a ``{schema: {name: value}}`` object) and
  ``instance_id_to_span_to_value`` (``[span object, value]`` pairs);
- the ``jsonl`` exporter's ``annotations.jsonl``: one line per user and instance with
  ``instance_id``, ``user_id``, ``labels`` (``{schema: {name: value}}``), ``spans``
  (``{schema: [span object, ...]}``) and ``links``.

A scheme is a workbench question, and what Potato stores for it becomes the question's
answer by the question's type (``potato_answer`` in kinds/question_types): a radio choice
is the chosen label's name, a Likert point ``"3"``, a multiselect ``{label: label}`` per
ticked label, a text box ``{"text_box": text}``, a number ``{"number": "0.5"}``, a
pairwise choice ``{"selection": "A" | "B" | "tie"}``, a ranking ``{"rank_order":
"a,b,c"}`` and spans Potato's span objects. Instances carry ids only, so the items must
exist already; import annotations. Links are counted in the import notes.

The export writes both: one ``<user>/user_state.json`` per annotator as Potato's
``InMemoryUserState.to_json`` writes it (phase ``done``; the folder name is the user id
made safe as one path part, the id itself is kept inside the file) and the
``annotations.jsonl`` Potato's exporter would write. Drafts and skips have no place in a
Potato state, and some answers lose a part Potato cannot hold (a pairwise strength, an
empty multiselect): both are counted in the export notes.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from interop.base import Converted, Tagged, existing, fail
from interop.potato_config import safe_name

if TYPE_CHECKING:
    from annotation_store import Store
    from kinds import HumanField

WRITES = ("annotations",)
STATE_FILE = "user_state.json"
EXPORT_FILE = "annotations.jsonl"
#: the phase a finished annotator's state holds (str(potato.phase.UserPhase.DONE))
DONE = "done"


def answer(spec: HumanField, stored: Any) -> Any:
    """What Potato stores for one scheme, as the question's answer."""
    return spec.question_type.potato_answer(spec, stored)


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


def _spans_by_scheme(raw: Any) -> dict[str, list[Any]]:
    """``{schema: [span object]}`` from a state's ``[[span, value], ...]`` list or an
    export's ``{schema: [span, ...]}`` object."""
    if isinstance(raw, dict):
        return {str(k): list(v) if isinstance(v, list) else [v] for k, v in raw.items()}
    if not isinstance(raw, list):
        raise ValueError("an instance's spans must be a list of pairs or an object")
    out: dict[str, list[Any]] = {}
    for entry in raw:
        span = entry[0] if isinstance(entry, list | tuple) and len(entry) == 2 else entry
        if not isinstance(span, dict):
            raise ValueError("each span must be an object with schema, name, start and end")
        out.setdefault(str(span.get("schema", "")), []).append(span)
    return out


def _add(
    out: Converted, where: str, item_id: Any, user: str, labels: Any, spans: Any = None
) -> None:
    try:
        schemes = _as_schemes(labels or {})
        by_span = _spans_by_scheme(spans or {})
    except ValueError as exc:
        raise fail(out.display, where, str(exc)) from None
    for scheme, stored in [*schemes.items(), *by_span.items()]:
        row = {"item_id": item_id, "annotator": user, "field": scheme, "value": stored}
        out.annotations.append(Tagged(f"{where}, scheme {scheme!r}", row))


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
        spans = state.get("instance_id_to_span_to_value") or {}
        for key, value in (("label", by_instance), ("span", spans)):
            if not isinstance(value, dict):
                raise fail(out.display, where, f"instance_id_to_{key}_to_value must be an object")
        for item_id in dict.fromkeys([*by_instance, *spans]):
            at = f"{where}, instance {item_id!r}"
            _add(out, at, item_id, user, by_instance.get(item_id), spans.get(item_id))
        links = state.get("instance_id_to_link_to_value") or {}
        if isinstance(links, dict):
            extras["links"] += sum(1 for v in links.values() if v)


def _read_export(out: Converted, file: Path, extras: Counter[str]) -> None:
    for number, line in enumerate(file.read_text(encoding="utf-8-sig").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        record = _read_json(out.display, where, line)
        if not isinstance(record, dict):
            raise fail(out.display, where, "each line must be an object")
        item_id, user = record.get("instance_id"), str(record.get("user_id") or "")
        at = f"{where} (instance {item_id!r})"
        _add(out, at, item_id, user, record.get("labels"), record.get("spans"))
        if record.get("links"):
            extras["links"] += 1


def read(path: str | Path) -> Converted:
    """Labels of a Potato output folder, one ``user_state.json``, or an
    ``annotations.jsonl`` export (or a folder holding one)."""
    root = existing(path)
    out = Converted(root.name, answer=answer, field_alias=safe_name)
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


def folder_name(user: str) -> str:
    """One safe path part for a user id: path separators, ``..`` and the like escaped."""
    name = quote(user, safe=" @+-_,=")
    return name if name.strip(". ") else name.replace(".", "%2E") or "%00"


def _span_object(scheme: str, span: dict[str, Any]) -> dict[str, Any]:
    """A span as ``SpanAnnotation.to_dict`` writes it (its id as Potato's server makes it)."""
    sid = f"{scheme}_{span['name']}___{span['start']}_{span['end']}"
    return {"schema": scheme, **span, "id": sid}


class _Instance:
    """One user's answers to one instance, in Potato's two stores."""

    def __init__(self) -> None:
        self.labels: dict[str, dict[str, str]] = {}
        self.spans: dict[str, list[dict[str, Any]]] = {}

    def pairs(self) -> list[list[Any]]:
        return [
            [{"schema": s, "name": n}, v]
            for s, named in self.labels.items()
            for n, v in named.items()
        ]

    def span_pairs(self) -> list[list[Any]]:
        # the value Potato's span tool sends for a marked span
        return [[span, 1] for spans in self.spans.values() for span in spans]


def _state(user: str, instances: dict[str, _Instance]) -> dict[str, Any]:
    """A ``user_state.json`` as ``InMemoryUserState.to_json`` writes it for an annotator
    who has finished (the keys its loader reads)."""
    return {
        "user_id": user,
        "instance_id_ordering": list(instances),
        "current_instance_index": max(len(instances) - 1, 0),
        "current_phase_and_page": [DONE, None],
        "completed_phase_and_pages": [],
        "max_assignments": -1,
        "instance_id_to_behavioral_data": {},
        "instance_id_to_label_to_value": {i: a.pairs() for i, a in instances.items()},
        "instance_id_to_span_to_value": {
            i: a.span_pairs() for i, a in instances.items() if a.spans
        },
        "phase_to_page_to_label_to_value": {},
        "phase_to_page_to_span_to_value": {},
    }


def _put(instance: _Instance, spec: HumanField, value: Any) -> str:
    """Store one answer as Potato would: ``""``, or ``"empty"`` when Potato keeps nothing
    for it, ``"part"`` when it holds only part of it."""
    qt = spec.question_type
    if qt.potato_spans is not None:
        objects = [_span_object(spec.name, s) for s in qt.potato_spans(spec, value)]
        if objects:
            instance.spans[spec.name] = objects
        stored: Any = objects
    else:
        stored = qt.potato_labels(spec, value)
        if stored:
            instance.labels[spec.name] = stored
    if not stored:
        return "empty"
    try:
        return "" if spec.validate(answer(spec, stored)) == spec.validate(value) else "part"
    except (ValueError, TypeError):
        return "part"


def _loss_note(loss: str, name: str, spec: HumanField, n: int) -> str:
    kind = spec.question_type.name
    if loss == "empty":
        return f"{n} empty answers to {name!r} not exported (Potato keeps no empty {kind} answer)"
    return (
        f"{n} answers to {name!r} exported in part (Potato's {kind} form does not hold "
        "all of them, such as the order the outputs were shown in)"
    )


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write ``<user>/user_state.json`` per annotator and ``annotations.jsonl`` (submitted
    labels); drafts, skips and answers Potato holds only in part are counted in ``notes``.
    Returns the user-instance pairs."""
    from interop.exporting import annotations_export_frame
    from interop.frames import records

    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    by_user: dict[str, dict[str, _Instance]] = {}
    left_out: Counter[str] = Counter()
    lost: Counter[tuple[str, str]] = Counter()
    for row in records(annotations_export_frame(store, project)):
        if row["status"] != "submitted":
            left_out[row["status"]] += 1
            continue
        instance = by_user.setdefault(row["annotator"], {}).setdefault(row["item_id"], _Instance())
        if loss := _put(instance, fields[row["field"]], row["value"]):
            lost[loss, row["field"]] += 1
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
        for iid, inst in instances.items():
            record = {"instance_id": iid, "user_id": user, "labels": inst.labels}
            lines.append(
                json.dumps({**record, "spans": inst.spans, "links": {}}, ensure_ascii=False)
            )
    root.mkdir(parents=True, exist_ok=True)
    (root / EXPORT_FILE).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    if notes is not None:
        notes.extend(
            f"{n} {status} labels not exported (Potato keeps no {status} labels)"
            for status, n in sorted(left_out.items())
        )
        notes.extend(
            _loss_note(loss, name, fields[name], n) for (loss, name), n in sorted(lost.items())
        )
    return sum(len(instances) for instances in by_user.values())
