"""Stores, projects, and data in and out (native CSV/JSONL/Parquet, frames, other tools)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from annotation_store import ImportReport, ProjectInfo, ProjectSummary, Store

WHATS = ("items", "annotations", "scores")


class ApiError(ValueError):
    """Bad input to an API call (the CLI shows it as one line)."""


def open_store(url: str | None = None) -> Store:
    """Open (and migrate) the store at ``url``, ``WORKBENCH_DB_URL`` or the SQLite default.

    A URL that cannot be parsed or reached is an :class:`ApiError` (one line, no driver
    traceback)."""
    from sqlalchemy.exc import ArgumentError, DBAPIError

    from annotation_store import open_store as _open

    try:
        return _open(url)
    except ArgumentError as exc:  # unparsable, or a database kind without a driver
        reason = str(exc).splitlines()[0]
        raise ApiError(f"--db: not a database URL the workbench can open ({reason})") from None
    except DBAPIError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
        raise ApiError(f"--db: cannot open the database: {reason}") from None


def parse_settings(settings: str | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Project settings given as a mapping or as JSON text (``'{"k": 3}'``)."""
    if not settings:
        return None
    parsed: Any = settings
    if isinstance(settings, str):
        try:
            parsed = json.loads(settings)
        except json.JSONDecodeError as exc:
            raise ApiError(f"settings is not valid JSON: {exc.msg}") from None
    if isinstance(parsed, Mapping):
        return dict(parsed)
    raise ApiError("settings must be a JSON object")


def create_project(
    store: Store,
    name: str,
    kind: str,
    settings: str | Mapping[str, Any] | None = None,
    guideline: str | None = None,
) -> ProjectInfo:
    """Create a project of a task kind (``binary``, ``likert``, ``intent_match``, ...)."""
    return store.create_project(name, kind, parse_settings(settings), guideline)


def projects(store: Store | str | None = None) -> list[ProjectSummary]:
    """Every project with item, annotator, label and result counts.

    Given a URL (or None: the default database) instead of a store, an existing SQLite
    file is read directly, without loading SQLAlchemy (the CLI's quick listing)."""
    if store is not None and not isinstance(store, str):
        return store.project_summaries()
    from annotation_store.summaries import quick_summaries
    from common.config import database_url

    url = database_url(store)
    rows = quick_summaries(url)
    if rows is not None:
        return rows
    opened = open_store(url)
    try:
        return opened.project_summaries()
    finally:
        opened.close()


def _frame_jsonl(frame: pd.DataFrame) -> bytes:
    """A frame as JSON lines for the native importers (missing cells left out)."""
    import pandas as pd

    lines = []
    for row in frame.to_dict(orient="records"):
        clean = {}
        for key, value in row.items():
            if isinstance(value, list | dict) or not pd.isna(value):
                clean[str(key)] = value.item() if hasattr(value, "item") else value
        lines.append(json.dumps(clean, ensure_ascii=False, default=str))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _add(store: Store, project: str, what: str, frame: pd.DataFrame) -> ImportReport:
    from interop.importing import IMPORTERS

    return IMPORTERS[what](store, project, _frame_jsonl(frame), name=f"{what} frame.jsonl")


def add_items(store: Store, project: str, frame: pd.DataFrame) -> ImportReport:
    """Import items from a frame (columns as in an items CSV); all-or-nothing."""
    return _add(store, project, "items", frame)


def add_labels(store: Store, project: str, frame: pd.DataFrame) -> ImportReport:
    """Import human labels (``item_id, annotator, field, value[, status]``); all-or-nothing."""
    return _add(store, project, "annotations", frame)


def add_scores(store: Store, project: str, frame: pd.DataFrame) -> ImportReport:
    """Import external evaluator scores (``item_id, evaluator, field, value``)."""
    return _add(store, project, "scores", frame)


def items_frame(store: Store, project: str) -> pd.DataFrame:
    """The project's items as exported."""
    from interop.exporting import items_frame as frame

    return frame(store, project)


def labels_frame(store: Store, project: str) -> pd.DataFrame:
    """The project's labels in long form, every status, as exported."""
    from interop.exporting import annotations_export_frame

    return annotations_export_frame(store, project)


def scores_frame(store: Store, project: str) -> pd.DataFrame:
    """The project's evaluator scores in the import's long form."""
    from interop.exporting import scores_export_frame

    return scores_export_frame(store, project)


def _check_what(what: str) -> None:
    if what not in WHATS:
        raise ApiError(f"cannot handle {what!r}: use one of {', '.join(WHATS)}")


def import_file(
    store: Store,
    project: str,
    what: str,
    path: str | Path,
    fmt: str | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    mapping: Mapping[str, str] | None = None,
) -> dict[str, ImportReport]:
    """Import a native file (CSV/TSV/JSONL/Parquet) or another tool's (``fmt``),
    all-or-nothing.

    With ``fmt``, ``annotations`` also brings in the items the file carries (Label
    Studio tasks, Argilla records) and the model scores (predictions, suggestions, EVAL
    scores); ``mapping`` renames the file's field and column names to the project's.
    ``on_progress(done, total, phase)`` follows a native items import. Returns the
    report per target; what the file holds but the import leaves out is in its notes."""
    _check_what(what)
    if fmt is None and mapping:
        raise ApiError("a field mapping works with another tool's format (--format)")
    if fmt is None:
        from interop.importing import IMPORTERS, import_items

        if what == "items":
            return {what: import_items(store, project, path, on_progress=on_progress)}
        return {what: IMPORTERS[what](store, project, path)}
    from interop import format_module
    from interop.base import apply_mapping, import_converted, read_guarded

    converted = apply_mapping(read_guarded(format_module(fmt), path), mapping or {})
    targets = ("items", "annotations", "scores") if what == "annotations" else (what,)
    return import_converted(store, project, converted, targets)


def export_file(
    store: Store,
    project: str,
    what: str,
    out: str | Path,
    fmt: str | None = None,
    notes: list[str] | None = None,
) -> int:
    """Write items, labels or scores natively (by suffix) or in another tool's format;
    what the format cannot carry (drafts, skips...) is counted in ``notes``."""
    _check_what(what)
    if fmt is None:
        from interop.exporting import export

        return export(store, project, what, out)
    from interop import format_module

    module = format_module(fmt)
    if not module.WRITES:
        raise ApiError(f"{fmt} files are imported only; the workbench does not write them")
    if what not in module.WRITES:
        raise ApiError(f"{fmt} export holds {' or '.join(module.WRITES)}, not {what}")
    store.project(project)
    return module.write(store, project, what, out, notes=notes)
