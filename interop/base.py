"""Shared machinery of the foreign formats: tagged rows, a dry run, the all-or-nothing import."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotation_store.records import ImportReport, ItemRecord
from interop.importing import IMPORTERS, ImportFailure

if TYPE_CHECKING:
    from annotation_store import Store

#: What a foreign file can carry, in the order it is validated and written.
TARGETS = ("items", "annotations", "scores")


@dataclass(frozen=True)
class Tagged:
    """A native row (as the native CSV/JSONL importers read it) and where it came from."""

    record: str
    row: dict[str, Any]


@dataclass
class Converted:
    """The native rows read from one foreign file."""

    display: str
    items: list[Tagged] = field(default_factory=list)
    annotations: list[Tagged] = field(default_factory=list)
    scores: list[Tagged] = field(default_factory=list)
    #: What the file holds that the import does not carry over, one line each.
    notes: list[str] = field(default_factory=list)
    #: Time on task the file records: ``(item_id, annotator, seconds)``, and where the
    #: platform took it from (stored beside it: not a time the app measured).
    seconds: list[tuple[Any, Any, Any]] = field(default_factory=list)
    time_source: str = "imported"
    #: The tool's column prefixes (MTurk: ``Answer.``, ``Input.``): ``--map`` may name a
    #: column with or without them.
    prefixes: tuple[str, ...] = ()
    #: Items the project already has are matched by id and never changed (a crowd batch
    #: names its items; it does not define them); an item only named must exist.
    items_by_reference: bool = False
    #: Time per submission, not per item (Prolific): ``(participant, seconds)``, spread
    #: over the participant's submitted items; ``no_rows_reason`` when none matches.
    submission_seconds: list[tuple[str, float]] = field(default_factory=list)
    no_rows_reason: str = ""
    #: Final labels a reviewer decided in the other tool (``item_id``, ``field``,
    #: ``value``, ``reviewer``): stored as the workbench's final labels, not as labels.
    finals: list[Tagged] = field(default_factory=list)
    #: ``answer(question, stored)``: a label's value as the tool stores it, made the
    #: question's answer once the project's questions are known (None: values as read);
    #: a ValueError names what does not fit
    answer: Callable[[Any, Any], Any] | None = None
    #: ``field_alias(name)``: the name a converted kind gave a field the tool names
    #: otherwise (Potato's ``"my scheme"`` -> ``my_scheme``), tried when the project
    #: has no field of the file's name
    field_alias: Callable[[str], str] | None = None
    #: Markers the tool put on an annotator's work (``item_id``, ``annotator``, text),
    #: kept in their note on the item beside the labels (Label Studio's ground truth).
    marks: list[tuple[Any, Any, str]] = field(default_factory=list)
    #: ``resolve(converted, fields)``: turn values read without the project into the
    #: answers of the project's human fields (by name), before validation; may drop rows
    #: with a note. None: the values are answers as read.
    resolve: Callable[[Converted, Mapping[str, Any]], None] | None = None

    def rows(self, target: str) -> list[Tagged]:
        """The rows of one target (items, annotations or scores)."""
        return getattr(self, target)


def parse_mapping(pairs: Sequence[str]) -> dict[str, str]:
    """``["their_name=our_field", ...]`` as a dict; a malformed pair is a ValueError."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        theirs, sep, ours = pair.partition("=")
        if not sep or not theirs.strip():
            raise ValueError(
                f"--map {pair!r}: use their_name=our_field (or their_name= to leave it out)"
            )
        mapping[theirs.strip()] = ours.strip()
    return mapping


def names(converted: Converted) -> list[str]:
    """The field names the file's labels and scores use, in order of appearance."""
    found = (
        t.row.get("field") for t in (*converted.annotations, *converted.scores, *converted.finals)
    )
    return list(dict.fromkeys(str(f) for f in found if f is not None))


def apply_mapping(converted: Converted, mapping: Mapping[str, str]) -> Converted:
    """Rename the file's names to the workbench's: label and score ``field`` values and
    item columns. Names the mapping does not mention stay as they are; a name mapped to
    ``""`` is left out, and counted in the notes."""
    if not mapping:
        return converted
    mapping = {_bare(k, converted.prefixes): v for k, v in mapping.items()}
    id_column = next((k for k, v in mapping.items() if v == "item_id"), None)
    if id_column is not None:
        _rekey(converted, id_column)
        mapping = {k: v for k, v in mapping.items() if k != id_column}
    dropped: Counter[str] = Counter()

    def named(tagged: list[Tagged], key: str | None) -> list[Tagged]:
        out = []
        for t in tagged:
            if key is None:
                row = {mapping.get(k, k): v for k, v in t.row.items() if mapping.get(k, k)}
            elif renamed := mapping.get(str(t.row.get(key)), t.row.get(key)):
                row = {**t.row, key: renamed}
            else:
                dropped[t.row[key]] += 1
                continue
            out.append(Tagged(t.record, row))
        return out

    converted.items = named(converted.items, None)
    converted.annotations = named(converted.annotations, "field")
    converted.scores = named(converted.scores, "field")
    converted.finals = named(converted.finals, "field")
    converted.notes.extend(
        f"{n} values of {name!r} left out (mapped to nothing)"
        for name, n in sorted(dropped.items())
    )
    return converted


def _bare(name: str, prefixes: Sequence[str]) -> str:
    """A column name without the tool's prefix (``Answer.Coherence`` -> ``Coherence``)."""
    for prefix in prefixes:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _rekey(converted: Converted, column: str) -> None:
    """Make item column ``column`` the items' id (``--map their_column=item_id``): the
    items, labels, scores, finals and times of each item follow it."""
    new_ids: dict[Any, Any] = {}
    items = []
    for t in converted.items:
        if t.row.get(column) in (None, ""):
            raise ImportFailure(
                converted.display, None, column, f"{t.record}: no {column!r} to use as item id"
            )
        new_ids[t.row["item_id"]] = t.row[column]
        row = {k: v for k, v in t.row.items() if k != column}
        items.append(Tagged(t.record, {**row, "item_id": t.row[column]}))
    converted.items = items
    for target in ("annotations", "scores", "finals"):
        rows = getattr(converted, target)
        setattr(
            converted,
            target,
            [
                Tagged(
                    t.record,
                    {**t.row, "item_id": new_ids.get(t.row.get("item_id"), t.row.get("item_id"))},
                )
                for t in rows
            ],
        )
    converted.seconds = [(new_ids.get(i, i), who, s) for i, who, s in converted.seconds]
    converted.marks = [(new_ids.get(i, i), who, t) for i, who, t in converted.marks]


def items_by_reference(store: Store, project: str, converted: Converted) -> None:
    """For a batch over existing items (``Converted.items_by_reference``): the project's
    items leave the rows to write (matched by id, their fields never changed), and items
    the batch only names (an id, no fields) but the project lacks fail in one line."""
    if not converted.items_by_reference or not converted.items:
        return
    known = set(store.item_ids(project))
    matched = [t for t in converted.items if str(t.row.get("item_id")) in known]
    new = [t for t in converted.items if str(t.row.get("item_id")) not in known]
    named = [str(t.row.get("item_id")) for t in new if not set(t.row) - {"item_id"}]
    if named:
        shown = ", ".join(named[:10]) + (f" ... ({len(named)} in all)" if len(named) > 10 else "")
        raise ImportFailure(
            converted.display,
            None,
            None,
            f"{len(named)} item(s) the batch names are not in project {project!r}: {shown}; "
            "import those items first (or give the batch their Input.* columns)",
        )
    converted.items = new
    if matched:
        converted.notes.append(
            f"{len(matched)} items already in the project matched by item id; "
            "their fields stay as they are"
        )


def read_guarded(module: Any, path: str | Path) -> Converted:
    """``module.read(path)``, with whatever a hostile file raises inside a tool's reader
    turned into one line naming the file (the readers name the record where they can)."""
    import csv

    from interop.row_source import MAX_CSV_CELL, TOO_DEEP, csv_reason, json_reason

    display = Path(path).name
    try:
        if csv.field_size_limit() < MAX_CSV_CELL:
            csv.field_size_limit(MAX_CSV_CELL)
        return module.read(path)
    except ImportFailure:
        raise
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 text (byte {exc.start:,}); save the file as UTF-8"
    except RecursionError:
        reason = TOO_DEEP
    except csv.Error as exc:
        reason = csv_reason(exc)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OSError) as exc:
        first = (str(exc).splitlines() or [""])[0][:200]
        digits = isinstance(exc, ValueError) and "digits" in first
        reason = json_reason(exc) if digits else f"unreadable ({type(exc).__name__}: {first})"
    raise ImportFailure(display, None, None, reason)


def fail(display: str, record: str, reason: str, column: str | None = None) -> ImportFailure:
    """An import failure naming the foreign file and record."""
    return ImportFailure(f"{display}, {record}", None, column, reason)


def label(display: str, at: str, convert: Callable[[], Any], **row: Any) -> Tagged:
    """A label row whose value ``convert()`` reads from the foreign record; a value it
    cannot read fails naming the record."""
    try:
        value = convert()
    except ValueError as exc:
        raise fail(display, at, str(exc)) from None
    return Tagged(at, {**row, "value": value})


class DryRunStore:
    """A store that validates like the real one but keeps writes back.

    The native importers read the project and its items through it; what they would
    write is kept (items also become visible to the labels and scores validated after
    them) and written by :meth:`commit` only when every row of the file is valid.
    """

    def __init__(self, store: Store, project: str) -> None:
        self._store = store
        self._project = project
        self._pending_items: dict[str, ItemRecord] = {}
        self._writes: list[tuple[str, list[Mapping[str, Any]]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def items(self, project: str) -> list[ItemRecord]:
        """Stored items with the pending ones replacing or following them."""
        stored = {r.item_id: r for r in self._store.items(project)}
        return list({**stored, **self._pending_items}.values())

    def item_ids(self, project: str, ids: Any = None) -> dict[str, int]:
        """Stored and pending item ids (pending ones map to -1)."""
        known = self._store.item_ids(project, ids)
        pending = {i: -1 for i in self._pending_items if ids is None or i in set(ids)}
        return {**pending, **known}

    def upsert_items(self, project: str, rows: Sequence[Mapping[str, Any]]) -> ImportReport:
        """Keep the items for later and make them visible to the next validations."""
        for r in rows:
            self._pending_items[r["item_id"]] = ItemRecord(
                -1, r["item_id"], -1, dict(r["fields"]), r.get("split"), r.get("generator")
            )
        self._writes.append(("upsert_items", list(rows)))
        return ImportReport()

    def upsert_item_batches(
        self, project: str, batches: Callable[[], Iterable[Sequence[Mapping[str, Any]]]]
    ) -> ImportReport:
        """As :meth:`upsert_items`, batch by batch."""
        return self.upsert_items(project, [row for batch in batches() for row in batch])

    def import_labels(self, project: str, rows: Sequence[Mapping[str, Any]]) -> ImportReport:
        """Keep the labels for later."""
        self._writes.append(("import_labels", list(rows)))
        return ImportReport()

    def import_scores(self, project: str, rows: Sequence[Mapping[str, Any]]) -> ImportReport:
        """Keep the scores for later."""
        self._writes.append(("import_scores", list(rows)))
        return ImportReport()

    def commit(self) -> dict[str, ImportReport]:
        """Write what the validations kept, in order; the reports by target."""
        names = {"upsert_items": "items", "import_labels": "annotations"}
        reports = {}
        for method, rows in self._writes:
            reports[names.get(method, "scores")] = getattr(self._store, method)(self._project, rows)
        return reports


def typed_answers(store: Store, project: str, converted: Converted) -> None:
    """Turn each label's stored value into its question's answer (``converted.answer``);
    a label of a field the project lacks stays as read, for the import to name."""
    if converted.answer is None:
        return
    info = store.project(project)
    known = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    alias = converted.field_alias or str
    rows = []
    for t in converted.annotations:
        name = str(t.row.get("field"))
        spec = known.get(name) or known.get(alias(name))
        if spec is None:
            rows.append(t)
            continue
        try:
            value = converted.answer(spec, t.row.get("value"))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise fail(converted.display, t.record, str(exc)) from None
        rows.append(Tagged(t.record, {**t.row, "field": spec.name, "value": value}))
    converted.annotations = rows
    converted.answer = None


def _validate(dry: DryRunStore, project: str, target: str, converted: Converted) -> None:
    tagged = converted.rows(target)
    data = "".join(json.dumps(t.row, ensure_ascii=False) + "\n" for t in tagged)
    try:
        IMPORTERS[target](dry, project, data.encode("utf-8"), name="rows.jsonl")  # type: ignore[arg-type]
    except ImportFailure as exc:
        record = tagged[exc.row - 1].record if exc.row else "the file"
        raise fail(converted.display, record, exc.reason, exc.column) from None


def _validate_finals(dry: DryRunStore, project: str, converted: Converted) -> None:
    """Final labels name a known item (stored or in the file), a reviewer the database can
    keep (no NUL, at most 200 characters) and a valid value (nothing NaN or too deep)."""
    from interop.row_source import check_row
    from kinds import ValidationError

    info = dry.project(project)
    fields = {i.item_id: i.fields for i in dry.items(project)}
    for t in converted.finals:
        try:
            check_row(converted.display, 1, t.row, bad_bytes=True)
        except ImportFailure as exc:
            raise fail(converted.display, t.record, exc.reason, exc.column) from None
        if len(str(t.row.get("reviewer"))) > 200:
            reason = "a reviewer name longer than 200 characters"
            raise fail(converted.display, t.record, reason, "reviewer")
        item_id = str(t.row.get("item_id"))
        if item_id not in fields:
            raise fail(converted.display, t.record, f"unknown item {item_id!r}")
        try:
            spec = info.task_kind.human_field(str(t.row.get("field")), info.settings)
        except ValidationError as exc:
            raise fail(converted.display, t.record, str(exc), "field") from None
        try:
            spec.validate(t.row.get("value"), fields[item_id])
        except (ValidationError, ValueError, TypeError) as exc:
            raise fail(converted.display, t.record, str(exc), "value") from None


def _has(converted: Converted, target: str) -> bool:
    return bool(converted.rows(target) or (target == "annotations" and converted.finals))


def _submission_times(store: Store, project: str, converted: Converted) -> dict[str, ImportReport]:
    """Spread each submission's time over its participant's submitted items."""
    from annotating.time_on_task import spread_submission_time

    people, rows = spread_submission_time(
        store, project, converted.submission_seconds, converted.time_source
    )
    if not rows:
        reason = converted.no_rows_reason or "no participant has submitted items here"
        raise ImportFailure(converted.display, None, None, reason)
    report = ImportReport()
    report.notes.append(
        f"time taken of {people} participants spread over their {rows} submitted items "
        f"(platform time: {converted.time_source})"
    )
    return {"annotations": report}


def import_converted(
    store: Store, project: str, converted: Converted, targets: Sequence[str] = TARGETS
) -> dict[str, ImportReport]:
    """Validate every row of ``targets`` with the native importers, then write them all.

    Nothing is written when one row is bad; the error names the foreign record. Final
    labels (``converted.finals``) come in with the annotations."""
    store.project(project)  # an unknown project fails before the file is looked at
    if converted.submission_seconds and not any(map(converted.rows, TARGETS)):
        return _submission_times(store, project, converted)
    chosen = [t for t in TARGETS if t in targets and _has(converted, t)]
    if not chosen:
        raise ImportFailure(
            converted.display, None, None, f"no {' or '.join(targets)} to import in this file"
        )
    if "items" in chosen:
        items_by_reference(store, project, converted)
        chosen = [t for t in chosen if t != "items" or converted.items]
    if converted.resolve is not None:
        info = store.project(project)
        converted.resolve(
            converted, {f.name: f for f in info.task_kind.human_fields(info.settings)}
        )
    if "annotations" in chosen:
        typed_answers(store, project, converted)
    dry = DryRunStore(store, project)
    for target in chosen:
        if converted.rows(target):
            _validate(dry, project, target, converted)
    finals = converted.finals if "annotations" in chosen else []
    if finals:
        _validate_finals(dry, project, converted)
    reports = dry.commit()
    if finals:
        from adjudication.final_labels import import_final_labels

        stored = import_final_labels(
            store, project, [t.row for t in finals], note=f"ground truth from {converted.display}"
        )
        reports.setdefault("annotations", ImportReport()).notes.append(
            f"{stored} final labels stored from the file's ground truth (the reviewer's "
            "decision, not an annotator's label)"
        )
    if converted.seconds and "annotations" in chosen:
        from annotating.time_on_task import set_time_on_task

        set_time_on_task(store, project, converted.seconds, converted.time_source)
    if converted.marks and "annotations" in chosen:
        from annotating.progress_marks import add_marks

        add_marks(store, project, converted.marks)
    notes = list(converted.notes)
    for target in TARGETS:
        if target not in chosen and converted.rows(target):
            noun = {"annotations": "labels"}.get(target, target)
            notes.append(
                f"{len(converted.rows(target))} {noun} in the file not imported "
                f"(import the file as {target} to bring them in)"
            )
    if converted.finals and "annotations" not in chosen:
        notes.append(
            f"{len(converted.finals)} ground-truth final labels in the file not imported "
            "(import the file as annotations to bring them in)"
        )
    if notes and reports:
        reports[chosen[-1]].notes.extend(notes)
    return reports


def read_json_records(path: Path, display: str) -> list[Any]:
    """A JSON array, an object holding one (``data``, ``items``), or JSON lines."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as whole:
        if text.lstrip()[:1] == "[":  # one JSON array, not lines: say where it breaks
            raise ImportFailure(display, None, None, f"not valid JSON ({whole})") from None
        data = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ImportFailure(display, number, None, f"not valid JSON ({exc.msg})") from None
    if isinstance(data, dict):
        for key in ("data", "items", "records", "scores", "feedback"):
            if isinstance(data.get(key), list):
                return data[key]
        return [data]
    if not isinstance(data, list):
        raise ImportFailure(display, None, None, "expected a JSON array of records")
    return data


def user_names(side: Path) -> dict[str, str]:
    """The ``{user id: name}`` object an export keeps beside its file ({} when absent)."""
    if not side.is_file():
        return {}
    try:
        data = json.loads(side.read_text(encoding="utf-8-sig"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise fail(side.name, "the file", "not valid JSON") from None
    if not isinstance(data, dict):
        raise fail(side.name, "the file", "expected an object of user id -> name")
    return {str(k): str(v) for k, v in data.items()}


def existing(path: str | Path) -> Path:
    """The path, or an import failure when nothing is there."""
    p = Path(path)
    if not p.exists():
        raise ImportFailure(p.name, None, None, "file not found")
    return p


Reader = Callable[[Path], Converted]
