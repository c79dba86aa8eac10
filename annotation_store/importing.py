"""Import items, human labels and external evaluator scores from CSV or JSONL.

Every row is validated against the project's task kind before anything is written; the
first bad row stops the import with an :class:`ImportFailure` naming the file, row,
column and reason, and the database is left exactly as it was. A valid file is written
in one transaction. Re-importing the same file changes nothing.

Hostile files fail the same way, in one line: bytes that are not UTF-8, a CSV cell longer
than :data:`MAX_CSV_CELL` characters, JSON nested deeper than :data:`MAX_JSON_DEPTH`, an
``item_id`` that is neither a string nor an integer.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from annotation_store.records import ImportReport
from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from kinds import ValidationError
from kinds.base import FieldType

SPLITS = ("dev", "test")
LABEL_STATUSES = ("draft", "submitted", "skipped")
ITEM_META = ("item_id", "split")
#: The longest CSV cell accepted, in characters (Python's csv default is 128 KiB).
MAX_CSV_CELL = 16 * 1024 * 1024
#: The deepest nesting of lists / objects accepted in a JSON value.
MAX_JSON_DEPTH = 64
_TOO_DEEP = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"


class ImportFailure(ValueError):
    """A row that cannot be imported; nothing from the file was written."""

    def __init__(self, file: str, row: int | None, column: str | None, reason: str) -> None:
        where = file
        if row is not None:
            where += f", row {row}"
        if column:
            where += f", column {column!r}"
        super().__init__(f"{where}: {reason}")
        self.file, self.row, self.column, self.reason = file, row, column, reason


Row = tuple[int, dict[str, Any]]
#: Rows per progress report (and per Parquet record batch).
PROGRESS_EVERY = 5_000
#: ``on_progress(done, total, phase)`` of an import.
ImportProgress = Callable[[int, int, str], None]


def read_rows(source: str | Path | bytes, name: str | None = None) -> tuple[str, list[Row]]:
    """Read a CSV or JSONL file (by suffix) into numbered rows.

    Rows are numbered from 1 for the first data row (the CSV header is not a row).
    Empty CSV cells become None. Returns the display name and the rows.
    """
    if isinstance(source, bytes):
        display = name or "upload"
        data = source
    else:
        path = Path(source)
        display = name or path.name
        if not path.is_file():
            raise ImportFailure(display, None, None, "file not found")
        data = path.read_bytes()
    suffix = Path(display).suffix.lower()
    if suffix == ".parquet":
        rows = list(_parquet_rows(display, data))
        for number, row in rows:
            for column, value in row.items():
                check_value(display, number, column, value, bad_bytes=False)
        return display, rows
    try:
        text, bad_bytes = data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        # Undecodable bytes become lone surrogates, so the row and column holding the first
        # one can be named once the file is parsed.
        text, bad_bytes = data.decode("utf-8-sig", errors="surrogateescape"), True
    if suffix in (".jsonl", ".ndjson", ".json"):
        rows = list(_jsonl_rows(display, text))
    elif suffix in (".csv", ".tsv"):
        rows = list(_csv_rows(display, text, "\t" if suffix == ".tsv" else ","))
    else:
        raise ImportFailure(
            display, None, None, "unknown format: use .csv, .tsv, .jsonl or .parquet"
        )
    if bad_bytes or suffix not in (".csv", ".tsv"):  # CSV cells are flat strings
        for number, row in rows:
            for column, value in row.items():
                check_value(display, number, column, value, bad_bytes)
    if bad_bytes:  # e.g. in the CSV header
        raise ImportFailure(display, None, None, _not_utf8(text))
    return display, rows


_SURROGATE = re.compile("[\udc80-\udcff]")


def _not_utf8(text: str) -> str | None:
    """The reason a decoded text holds bytes that were not UTF-8, or None."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return f"not UTF-8 text (byte 0x{ord(found.group()) - 0xDC00:02x}); save the file as UTF-8"


def check_value(display: str, number: int, column: str, value: Any, bad_bytes: bool = True) -> None:
    """Refuse a cell holding non-UTF-8 bytes or JSON nested deeper than MAX_JSON_DEPTH.

    Walks lists and objects with a stack (no recursion, so no RecursionError)."""
    stack = [(column, 0), (value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, str):
            if bad_bytes and (reason := _not_utf8(current)):
                raise ImportFailure(display, number, column, reason)
        elif isinstance(current, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise ImportFailure(display, number, column, _TOO_DEEP)
            children = (
                [*current.keys(), *current.values()] if isinstance(current, dict) else current
            )
            stack.extend((child, depth + 1) for child in children)


def _jsonl_rows(display: str, text: str) -> Iterator[Row]:
    number = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        number += 1
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportFailure(display, number, None, f"not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise ImportFailure(display, number, None, _TOO_DEEP) from None
        if not isinstance(obj, dict):
            raise ImportFailure(display, number, None, "each line must be a JSON object")
        if isinstance(obj.get("fields"), dict):  # {"item_id": ..., "fields": {...}} form
            obj = {**{k: v for k, v in obj.items() if k != "fields"}, **obj["fields"]}
        yield number, obj


def _parquet_rows(display: str, data: bytes) -> Iterator[Row]:
    """Rows of a Parquet file, read in record batches (nested columns stay lists/objects)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        number = 0
        for batch in parquet.iter_batches(batch_size=PROGRESS_EVERY):
            for obj in batch.to_pylist():
                number += 1
                if isinstance(obj.get("fields"), dict):  # the JSONL export's nested form
                    obj = {**{k: v for k, v in obj.items() if k != "fields"}, **obj["fields"]}
                yield number, {str(k): v for k, v in obj.items()}
    except (pa.ArrowException, OSError) as exc:
        raise ImportFailure(display, None, None, f"not a readable Parquet file ({exc})") from None


def _csv_rows(display: str, text: str, delimiter: str) -> Iterator[Row]:
    if csv.field_size_limit() < MAX_CSV_CELL:
        csv.field_size_limit(MAX_CSV_CELL)
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    number = 0
    try:
        if reader.fieldnames is None:
            raise ImportFailure(display, None, None, "the file is empty")
        for number, record in enumerate(reader, start=1):
            if None in record:
                raise ImportFailure(display, number, None, "more cells than header columns")
            yield (
                number,
                {k.strip(): (v if v not in ("", None) else None) for k, v in record.items()},
            )
    except csv.Error as exc:
        row = number + 1 if reader.fieldnames is not None else None
        reason = (
            f"a cell is longer than the limit of {MAX_CSV_CELL:,} characters"
            if "field larger than field limit" in str(exc)
            else f"not valid CSV ({exc})"
        )
        raise ImportFailure(display, row, None, reason) from None


def _item_id(display: str, number: int, row: Mapping[str, Any]) -> str:
    """The row's ``item_id`` as text; only strings and integers are ids."""
    value = _require(display, number, row, "item_id")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ImportFailure(
            display, number, "item_id", f"must be a string or an integer, not {value!r:.40}"
        )
    return str(value)


def _require(display: str, number: int, row: Mapping[str, Any], column: str) -> Any:
    value = row.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ImportFailure(display, number, column, "missing value")
    return value.strip() if isinstance(value, str) else value


# -- items ------------------------------------------------------------------------------
def _maybe_json(value: Any) -> Any:
    """Context columns written as JSON text (lists, objects) come back as values."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def import_items(
    store: Store,
    project: str,
    source: str | Path | bytes,
    name: str | None = None,
    on_progress: ImportProgress | None = None,
) -> ImportReport:
    """Import items: ``item_id``, the kind's item fields, optional ``split`` and
    ``generator``; any other column is kept as context.

    ``on_progress(done, total, phase)`` hears about every :data:`PROGRESS_EVERY` rows
    checked (phase ``checking``), then ``writing`` and ``done``."""
    kind = store.project(project).task_kind
    declared = {f.name for f in kind.item_fields}
    # Gold answers (attention checks); a kind with an item field "gold" uses "gold_answers".
    gold_column = "gold_answers" if "gold" in declared else "gold"
    meta = (*ITEM_META, gold_column)
    display, rows = read_rows(source, name)
    seen: dict[str, int] = {}
    valid = []
    golds: dict[str, Any] = {}
    for number, row in rows:
        if on_progress is not None and number % PROGRESS_EVERY == 0:
            on_progress(number, len(rows), "checking")
        item_id = _item_id(display, number, row)
        if row.get(gold_column) not in (None, ""):
            golds[item_id] = _gold_cell(store, project, display, number, row[gold_column])
        if item_id in seen:
            raise ImportFailure(
                display,
                number,
                "item_id",
                f"duplicate item_id {item_id!r} (first on row {seen[item_id]})",
            )
        seen[item_id] = number
        split = row.get("split")
        if split is not None:
            split = str(split).strip().lower()
            if split not in SPLITS:
                raise ImportFailure(display, number, "split", f"must be one of {SPLITS} or empty")
        fields = {
            k: (v if k in declared else _maybe_json(v))
            for k, v in row.items()
            if k not in meta and v is not None
        }
        try:
            fields = kind.validate_item(fields)
        except ValidationError as exc:
            raise ImportFailure(display, number, exc.field, str(exc)) from None
        except RecursionError:
            raise ImportFailure(display, number, None, _TOO_DEEP) from None
        for column, value in fields.items():  # JSON text in CSV cells, now parsed
            check_value(display, number, column, value, bad_bytes=False)
        generator = fields.get("generator")
        valid.append(
            {
                "item_id": item_id,
                "fields": fields,
                "split": split,
                "generator": str(generator) if generator is not None else None,
            }
        )
    if not valid:
        raise ImportFailure(display, None, None, "no rows to import")
    if on_progress is not None:
        on_progress(len(rows), len(rows), "writing")
    report = store.upsert_items(project, valid)
    if golds:
        from annotation_store.gold import set_gold_many

        set_gold_many(store, project, golds)
    if on_progress is not None:
        on_progress(len(rows), len(rows), "done")
    return report


def _gold_cell(store: Store, project: str, display: str, number: int, value: Any) -> Any:
    """A ``gold`` cell (JSON object of field -> answer, or one answer), checked."""
    from annotation_store.gold import canonical_answers

    try:
        return canonical_answers(store, project, _maybe_json(value))
    except StoreError as exc:
        raise ImportFailure(display, number, "gold", str(exc)) from None


# -- annotations ------------------------------------------------------------------------
def import_annotations(
    store: Store, project: str, source: str | Path | bytes, name: str | None = None
) -> ImportReport:
    """Import labels in long form: ``item_id``, ``annotator``, ``field``, ``value`` and an
    optional ``status`` (default submitted). List values are JSON."""
    info = store.project(project)
    kind = info.task_kind
    fields = {f.name: f for f in kind.human_fields(info.settings)}
    items = {r.item_id: r for r in store.items(project)}
    display, rows = read_rows(source, name)
    seen: dict[tuple[str, str, str], tuple[int, Any]] = {}
    valid = []
    for number, row in rows:
        item_id = _item_id(display, number, row)
        annotator = str(_require(display, number, row, "annotator"))
        field_name = str(_require(display, number, row, "field"))
        raw = _require(display, number, row, "value")
        status = str(row.get("status") or "submitted").strip().lower()
        if item_id not in items:
            raise ImportFailure(display, number, "item_id", f"no item {item_id!r} in {project!r}")
        if field_name not in fields:
            raise ImportFailure(
                display, number, "field", f"unknown field {field_name!r} (known: {sorted(fields)})"
            )
        if status not in LABEL_STATUSES:
            raise ImportFailure(display, number, "status", f"must be one of {LABEL_STATUSES}")
        spec = fields[field_name]
        if spec.type is FieldType.FACT_LABELS and isinstance(raw, str):
            raw = raw.strip()
        try:
            value = spec.validate(raw, items[item_id].fields, draft=status == "draft")
        except ValidationError as exc:
            raise ImportFailure(display, number, "value", str(exc)) from None
        except RecursionError:
            raise ImportFailure(display, number, "value", _TOO_DEEP) from None
        key = (item_id, annotator, field_name)
        if key in seen and seen[key][1] != value:
            raise ImportFailure(
                display,
                number,
                "value",
                f"conflicts with row {seen[key][0]} for the same item, annotator and field",
            )
        seen[key] = (number, value)
        valid.append(
            {
                "item_id": item_id,
                "annotator": annotator,
                "field": field_name,
                "value": value,
                "status": status,
            }
        )
    if not valid:
        raise ImportFailure(display, None, None, "no rows to import")
    return store.import_labels(project, valid)


# -- scores -----------------------------------------------------------------------------
def scoreable_fields(store: Store, project: str) -> list[str]:
    """Fields an evaluator score may refer to: human fields and derived scores."""
    info = store.project(project)
    kind = info.task_kind
    return [f.name for f in kind.human_fields(info.settings)] + [
        d.name for d in kind.derived_scores
    ]


def import_scores(
    store: Store, project: str, source: str | Path | bytes, name: str | None = None
) -> ImportReport:
    """Import external evaluator scores: ``item_id``, ``evaluator``, ``field``, ``value``,
    optional ``judge_model`` and ``run`` (repetition index, default 0)."""
    allowed = scoreable_fields(store, project)
    items = store.item_ids(project)
    display, rows = read_rows(source, name)
    seen: dict[tuple[str, str, str | None, int, str], tuple[int, float]] = {}
    valid = []
    for number, row in rows:
        item_id = _item_id(display, number, row)
        evaluator = str(_require(display, number, row, "evaluator"))
        field_name = str(_require(display, number, row, "field"))
        raw = _require(display, number, row, "value")
        if item_id not in items:
            raise ImportFailure(display, number, "item_id", f"no item {item_id!r} in {project!r}")
        if field_name not in allowed:
            raise ImportFailure(
                display, number, "field", f"unknown field {field_name!r} (known: {allowed})"
            )
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise ImportFailure(display, number, "value", f"{raw!r} is not a number") from None
        if not math.isfinite(value):
            raise ImportFailure(display, number, "value", "must be a finite number")
        judge = row.get("judge_model")
        judge = str(judge).strip() if judge not in (None, "") else None
        try:
            run = int(row.get("run") or 0)
        except (TypeError, ValueError):
            raise ImportFailure(display, number, "run", "must be a whole number") from None
        if run < 0:
            raise ImportFailure(display, number, "run", "must be >= 0")
        key = (item_id, evaluator, judge, run, field_name)
        if key in seen and seen[key][1] != value:
            raise ImportFailure(
                display,
                number,
                "value",
                f"conflicts with row {seen[key][0]} for the same item, "
                "evaluator, judge model, run and field",
            )
        seen[key] = (number, value)
        valid.append(
            {
                "item_id": item_id,
                "evaluator": evaluator,
                "field": field_name,
                "value": value,
                "judge_model": judge,
                "run": run,
            }
        )
    if not valid:
        raise ImportFailure(display, None, None, "no rows to import")
    return store.import_scores(project, valid)


IMPORTERS = {"items": import_items, "annotations": import_annotations, "scores": import_scores}
