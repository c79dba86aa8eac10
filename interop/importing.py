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

import json
import math
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from annotation_store import StoreError
from annotation_store.records import ImportReport
from annotation_store.store import Store
from interop.row_source import (
    MAX_CSV_CELL,
    MAX_JSON_DEPTH,
    ImportFailure,
    Row,
    RowSource,
    check_row,
)
from interop.row_source import TOO_DEEP as _TOO_DEEP
from kinds import ValidationError
from kinds.base import FieldType

__all__ = ["MAX_CSV_CELL", "MAX_JSON_DEPTH", "ImportFailure", "read_rows"]

SPLITS = ("dev", "test")
LABEL_STATUSES = ("draft", "submitted", "skipped")
ITEM_META = ("item_id", "split")
#: Rows per progress report (and per batch written by an items import).
PROGRESS_EVERY = 5_000
#: ``on_progress(done, total, phase)`` of an import.
ImportProgress = Callable[[int, int, str], None]


def read_rows(source: str | Path | bytes, name: str | None = None) -> tuple[str, list[Row]]:
    """Read a CSV, TSV, JSONL or Parquet file (by suffix) into numbered rows.

    Rows are numbered from 1 for the first data row (the CSV header is not a row).
    Empty CSV cells become None. Returns the display name and the rows. Items are
    streamed instead (see :class:`~interop.row_source.RowSource`).
    """
    rows = RowSource.open(source, name)
    return rows.display, list(rows)


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


class _ItemRows:
    """Checks one items-file row at a time against a project's task kind."""

    def __init__(self, store: Store, project: str, display: str) -> None:
        self.store, self.project, self.display = store, project, display
        self.kind = store.project(project).task_kind
        self.declared = {f.name for f in self.kind.item_fields}
        # Gold answers (attention checks); a kind with an item field "gold" uses
        # "gold_answers".
        self.gold_column = "gold_answers" if "gold" in self.declared else "gold"
        self.meta = (*ITEM_META, self.gold_column)

    def gold(self, number: int, row: Mapping[str, Any]) -> Any:
        """The row's checked gold answers, or None."""
        if row.get(self.gold_column) in (None, ""):
            return None
        return _gold_cell(self.store, self.project, self.display, number, row[self.gold_column])

    def item(self, number: int, row: Mapping[str, Any]) -> dict[str, Any]:
        """The row as an item to upsert (``item_id``, ``fields``, ``split``, ``generator``)."""
        display = self.display
        item_id = _item_id(display, number, row)
        split = row.get("split")
        if split is not None:
            split = str(split).strip().lower()
            if split not in SPLITS:
                raise ImportFailure(display, number, "split", f"must be one of {SPLITS} or empty")
        fields = {
            k: (v if k in self.declared else _maybe_json(v))
            for k, v in row.items()
            if k not in self.meta and v is not None
        }
        try:
            fields = self.kind.validate_item(fields)
        except ValidationError as exc:
            raise ImportFailure(display, number, exc.field, str(exc)) from None
        except RecursionError:
            raise ImportFailure(display, number, None, _TOO_DEEP) from None
        check_row(display, number, fields, bad_bytes=False)  # JSON text in CSV cells, parsed
        generator = fields.get("generator")
        return {
            "item_id": item_id,
            "fields": fields,
            "split": split,
            "generator": str(generator) if generator is not None else None,
        }


def import_items(
    store: Store,
    project: str,
    source: str | Path | bytes,
    name: str | None = None,
    on_progress: ImportProgress | None = None,
) -> ImportReport:
    """Import items: ``item_id``, the kind's item fields, optional ``split`` and
    ``generator``; any other column is kept as context.

    The file is streamed twice, so memory does not grow with it: a first pass checks
    every row (nothing written; the first bad row raises :class:`ImportFailure`), a
    second writes in batches of :data:`PROGRESS_EVERY` rows, all-or-nothing (see
    :meth:`Store.upsert_item_batches`). ``on_progress(done, total, phase)`` hears about
    every :data:`PROGRESS_EVERY` rows checked (phase ``checking``; ``total`` is then an
    estimate from the file's size in lines) and written (``writing``), then ``done``."""
    store.project(project)  # an unknown project is said before anything about the file
    rows = RowSource.open(source, name)
    check = _ItemRows(store, project, rows.display)
    estimate = rows.estimate() if on_progress is not None else 0
    seen: dict[str, int] = {}
    golds: dict[str, Any] = {}
    total = 0
    for total, row in rows:
        if on_progress is not None and total % PROGRESS_EVERY == 0:
            on_progress(total, max(estimate, total), "checking")
        item_id = _item_id(rows.display, total, row)
        if (gold := check.gold(total, row)) is not None:
            golds[item_id] = gold
        if item_id in seen:
            raise ImportFailure(
                rows.display,
                total,
                "item_id",
                f"duplicate item_id {item_id!r} (first on row {seen[item_id]})",
            )
        seen[item_id] = total
        check.item(total, row)
    if not total:
        raise ImportFailure(rows.display, None, None, "no rows to import")
    del seen

    def batches() -> Iterator[list[dict[str, Any]]]:
        batch: list[dict[str, Any]] = []
        for number, row in rows:
            batch.append(check.item(number, row))
            if len(batch) == PROGRESS_EVERY or number == total:
                yield batch
                batch = []
                if on_progress is not None:
                    on_progress(number, total, "writing")
        if batch:  # the file grew between the passes: its new rows are checked too
            yield batch

    report = store.upsert_item_batches(project, batches)
    if golds:
        from studies.gold import set_gold_many

        set_gold_many(store, project, golds)
    if on_progress is not None:
        on_progress(total, total, "done")
    return report


def _gold_cell(store: Store, project: str, display: str, number: int, value: Any) -> Any:
    """A ``gold`` cell (JSON object of field -> answer, or one answer), checked."""
    from studies.gold import canonical_answers

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
