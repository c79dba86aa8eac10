"""Argilla records as a Hugging Face ``datasets`` table (Parquet, JSON lines or Arrow).

This is the flat layout argilla 2.8.0's own ``GenericIO.to_list(records, flatten=True)``
produces (what ``to_datasets`` and ``to_hub`` write, and ``from_hub`` reads): one row
per record with ``id``, the record's fields as columns, per question ``<q>.responses``
(values), ``<q>.responses.users`` (user UUIDs) and ``<q>.responses.status``
(``submitted`` / ``draft`` / ``discarded``), and ``<q>.suggestion`` / ``.score`` /
``.agent`` (a model's answer). A question is a workbench field, a record an item, a
suggestion an evaluator score (evaluator ``argilla``, judge model the agent; its
confidence is counted in the notes). Fixture: tests/data/peers/argilla.

A folder export is a dataset folder as ``from_hub`` / ``from_disk`` expect it:
``.argilla/settings.json`` (fields and questions, as ``Settings.to_json`` writes them),
``records.parquet`` and ``users.json`` (user UUID -> name). Single-file exports keep the
names in ``<stem>.users.json`` beside the file. Imports read either mapping when present.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop.base import Converted, Tagged, existing, fail, user_names

if TYPE_CHECKING:
    from annotation_store import Store

WRITES = ("items", "annotations")
#: Columns Argilla adds that are not item fields.
RECORD_META = {"id", "status", "_server_id", "inserted_at", "updated_at", "metadata"}
STATUS_IN = {"submitted": "submitted", "draft": "draft", "discarded": "skipped"}
STATUS_OUT = {v: k for k, v in STATUS_IN.items()}
#: Namespace of the user UUIDs exports derive from names.
_USERS = uuid.UUID("7c0e4a1d-93b5-4f6e-8d2a-5b1e0f3c9a47")


def _rows(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        tables = sorted(path.glob("*.parquet")) + sorted(path.glob("data/*.parquet"))
        if tables:
            return [row for table in tables for row in _rows(table)]
        try:
            from datasets import load_from_disk
        except ImportError:
            raise fail(
                path.name, "the folder", "holds no .parquet file (Arrow folders need `datasets`)"
            ) from None

        from interop.row_source import check_arrow_files

        check_arrow_files(path.name, sorted(path.glob("*.arrow")))
        return _quietly(lambda: load_from_disk(str(path)).to_list())
    if path.suffix.lower() == ".parquet":
        from interop.row_source import check_parquet, open_parquet, parquet_objects

        parquet = open_parquet(path)
        # The decompressed-size cap, before any page and batch by batch; Argilla's own
        # time columns are record metadata and never reach the store.
        check_parquet(path.name, parquet, source=path, types=False)
        return [
            {k: v for k, v in row.items() if k not in RECORD_META or k in ("id", "status")}
            for row in parquet_objects(path.name, parquet)
        ]
    if path.suffix.lower() in (".jsonl", ".json"):
        rows = []
        for number, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise fail(path.name, f"line {number}", f"not valid JSON ({exc.msg})") from None
        return rows
    raise fail(path.name, "the file", "use .parquet, .jsonl or a dataset folder")


def _quietly(load: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """``load()`` with ``datasets``' progress bars off (no bars on stderr unless asked)."""
    import datasets

    was_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        return load()
    finally:
        if was_on:
            datasets.enable_progress_bars()


def users_file(path: Path) -> Path:
    """Where an export keeps its user UUIDs' names."""
    return path / "users.json" if path.is_dir() else path.with_name(f"{path.stem}.users.json")


def _names(path: Path) -> dict[str, str]:
    """User UUID -> name, from the export's users file (either direction accepted)."""
    pairs = user_names(users_file(path))
    if pairs and all(_is_uuid(v) for v in pairs.values()):
        return {v: k for k, v in pairs.items()}
    return pairs


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _suggestion(out: Converted, where: str, record: dict[str, Any], q: str) -> int:
    """The record's suggestion for ``q`` as an evaluator score; 1 if it had a confidence."""
    value = record.get(f"{q}.suggestion")
    if value is None:
        return 0
    at = f"{where}, suggestion {q!r}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        out.notes.append(f"{at}: a {type(value).__name__} suggestion is not a score")
        return 0
    agent = record.get(f"{q}.suggestion.agent") or None
    row = {"item_id": record.get("id"), "evaluator": "argilla", "field": q, "value": value}
    out.scores.append(Tagged(at, {**row, "judge_model": agent}))
    return int(record.get(f"{q}.suggestion.score") is not None)


def _groups(value: Any) -> Any:
    """A ranking answer (``[{"value", "rank"}]``, as Argilla's API keeps it) as groups of
    values best first, values of one rank level; any other answer as it is."""
    if not (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "value" in v and "start" not in v for v in value)
    ):
        return value
    ranks = [v.get("rank") for v in value]
    if any(not isinstance(r, int) or isinstance(r, bool) for r in ranks):
        return [[v["value"]] for v in value]  # no ranks: the list's order is the ranking
    by_rank: dict[int, list[Any]] = {}
    for v in sorted(value, key=lambda v: v["rank"]):
        by_rank.setdefault(v["rank"], []).append(v["value"])
    return list(by_rank.values())


def read(path: str | Path) -> Converted:
    """Items (the records), labels (their responses) and scores (their suggestions)."""
    p = existing(path)
    out = Converted(p.name)
    names = _names(p)
    confident = 0
    for index, record in enumerate(_rows(p), start=1):
        if not isinstance(record, dict):
            raise fail(p.name, f"record {index}", "a record must be an object")
        item_id = record.get("id")
        where = f"record {index} (id {item_id})"
        questions = {
            k.split(".", 1)[0] for k in record if k.endswith((".responses", ".suggestion"))
        }
        fields = {
            k: v
            for k, v in record.items()
            if "." not in k and k not in RECORD_META and k not in questions and v is not None
        }
        out.items.append(Tagged(where, {"item_id": item_id, **fields}))
        for q in sorted(questions):
            confident += _suggestion(out, where, record, q)
            values = record.get(f"{q}.responses") or []
            users = record.get(f"{q}.responses.users") or []
            statuses = record.get(f"{q}.responses.status") or ["submitted"] * len(values)
            if not all(isinstance(v, list) for v in (values, users, statuses)) or not (
                len(values) == len(users) == len(statuses)
            ):
                raise fail(
                    p.name, f"{where}, question {q!r}", "responses, users, status differ in length"
                )
            for value, user, status in zip(values, users, statuses, strict=True):
                at = f"{where}, question {q!r}, user {user}"
                if status not in STATUS_IN:
                    raise fail(p.name, at, f"unknown response status {status!r}")
                who = names.get(str(user), str(user))
                row = {"item_id": item_id, "annotator": who, "field": q, "value": _groups(value)}
                out.annotations.append(Tagged(at, {**row, "status": STATUS_IN[status]}))
    if confident:
        out.notes.append(f"{confident} suggestion confidence scores not imported")
    return out


def user_uuid(project: str, name: str) -> str:
    """The UUID an annotator gets in an export (the same every time)."""
    return str(uuid.uuid5(_USERS, f"{project}/{name}"))


def records(
    store: Store, project: str, with_labels: bool = True, notes: list[str] | None = None
) -> list[dict[str, Any]]:
    """The project as Argilla records (flat ``datasets`` rows; users as UUIDs), each
    response as its question takes it (``argilla_response``); answers Argilla cannot
    hold, and what it drops of others, are counted in ``notes``."""
    from interop.exporting import annotations_export_frame, items_frame
    from interop.frames import records as frame_records

    info = store.project(project)
    specs = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    names = list(specs)
    losses: Counter[tuple[str, str]] = Counter()
    dropped: Counter[tuple[str, str]] = Counter()
    rows = {
        r["item_id"]: {"id": r.pop("item_id"), **r}
        for r in frame_records(items_frame(store, project))
    }
    for row in rows.values():
        _field_values(info.task_kind.item_fields, row)
    if with_labels:
        for row in rows.values():
            for q in names:
                row[f"{q}.responses"], row[f"{q}.responses.users"] = [], []
                row[f"{q}.responses.status"] = []
        for label in frame_records(annotations_export_frame(store, project)):
            row = rows[label["item_id"]]
            q = label["field"]
            lost: list[str] = []
            value = specs[q].question_type.argilla_response(specs[q], label["value"], lost)
            if value is None:
                dropped[(q, lost[0] if lost else "Argilla has no form for them")] += 1
                continue
            losses.update((q, phrase) for phrase in lost)
            row[f"{q}.responses"].append(value)
            row[f"{q}.responses.users"].append(user_uuid(project, label["annotator"]))
            row[f"{q}.responses.status"].append(STATUS_OUT[label["status"]])
    for row in rows.values():
        row["status"] = "completed" if any(row.get(f"{q}.responses") for q in names) else "pending"
    if notes is not None:
        notes.extend(
            f"{n} {q!r} answers not exported: {why}" for (q, why), n in sorted(dropped.items())
        )
        notes.extend(f"{n} {q!r} answers: {phrase}" for (q, phrase), n in sorted(losses.items()))
    return list(rows.values())


def _field_type(field: Any) -> str:
    """Argilla's field type for an item field: a chat for a transcript, else text."""
    return "chat" if "chat" in (field.kind, field.role) else "text"


def _field_values(kind_fields: Any, row: dict[str, Any]) -> None:
    """Item field values as Argilla's fields take them: a chat as its turns, any other
    value that is not text as JSON text (lists and objects; the import reads them back)."""
    for f in kind_fields:
        value = row.get(f.name)
        if _field_type(f) == "text" and value is not None and not isinstance(value, str):
            row[f.name] = json.dumps(value, ensure_ascii=False)


def settings(store: Store, project: str) -> dict[str, Any]:
    """``.argilla/settings.json`` as ``Settings.to_json`` writes it: a text field per item
    column annotators see, a question per human field (``argilla_question``); a question
    asked only under a condition, or optional, is not required. Hidden item fields (the
    system behind an output, gold, provenance) are metadata kept from annotators."""
    info = store.project(project)
    item_fields = info.task_kind.item_fields
    fields = [
        {"name": f.name, "title": f.name, "required": False, "type": _field_type(f)}
        | {"settings": {"type": _field_type(f), "use_markdown": f.role in ("markdown", "chat")}}
        | {"description": f.description or None}
        for f in item_fields
        if not f.hidden
    ]
    metadata = [
        {"name": f.name, "title": f.name, "visible_for_annotators": False}
        | {"type": "terms", "settings": {"type": "terms", "values": None}}
        for f in item_fields
        if f.hidden and f.kind == "text"  # terms hold text; other hidden values stay columns
    ]
    questions = []
    for f in info.task_kind.human_fields(info.settings):
        kind, options = f.question_type.argilla_question(f)
        questions.append(
            {"name": f.name, "title": f.name, "description": f.description or None}
            | {"required": f.required and f.show_if is None}
            | {"type": kind, "settings": {"type": kind, **options}}
        )
    return {
        "guidelines": info.task_kind.guideline or None,
        "questions": questions,
        "fields": fields,
        "vectors": [],
        "metadata": metadata,
        "allow_extra_metadata": True,
        "distribution": {"strategy": "overlap", "min_submitted": 1},
        "mapping": None,
    }


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write the records as ``datasets`` reads them: .parquet, .jsonl, or a dataset folder
    (``.argilla/settings.json`` + ``records.parquet``); user names in a users file.
    Written with pyarrow, so the default install needs no ``datasets``."""
    rows = records(store, project, with_labels=what == "annotations", notes=notes)
    path = Path(out)
    if path.suffix.lower() == ".parquet":
        _write_parquet(rows, path)
    elif path.suffix.lower() in (".jsonl", ".json"):
        with path.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    elif path.suffix == "":
        (path / ".argilla").mkdir(parents=True, exist_ok=True)
        text = json.dumps(settings(store, project), ensure_ascii=False)
        (path / ".argilla" / "settings.json").write_text(text, encoding="utf-8")
        _write_parquet(rows, path / "records.parquet")
    else:
        raise ValueError("argilla export: use .parquet, .jsonl or a folder name")
    if what == "annotations":
        from interop.exporting import annotations_export_frame

        people = sorted(set(annotations_export_frame(store, project)["annotator"]))
        mapping = {user_uuid(project, name): name for name in people}
        users_file(path).write_text(json.dumps(mapping, ensure_ascii=False, indent=1), "utf-8")
    return len(rows)


def _write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    """One Parquet table, a column per key seen in any row (missing values null)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    keys = list(dict.fromkeys(k for row in rows for k in row))
    table = pa.table({k: pa.array([row.get(k) for row in rows]) for k in keys})
    pq.write_table(table, path)
