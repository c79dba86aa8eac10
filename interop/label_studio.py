"""Label Studio's JSON export: tasks with ``data``, ``annotations``, ``drafts`` and
``predictions``, as label-studio-sdk 2.1.2's models serialise them (fixture:
tests/data/peers/label-studio, written with the SDK's ``Annotation`` / ``Prediction``).

A result's ``from_name`` is the workbench field (``--map`` renames it); its ``type`` says
where the value is (``choices``, ``taxonomy``, ``rating``, ``number``, ``textarea``,
``labels`` spans, ``pairwise``; :mod:`interop.label_studio_controls` makes it the
question's answer once the project is known). ``data.item_id`` is the item id (else the
task id). What each part becomes:

- annotations: labels; ``completed_by`` is a user id (an integer: ``ls-user-<id>``, or
  the name a ``<export>.users.json`` beside the file gives it; an object's email);
  ``was_cancelled`` is a skip; ``lead_time`` is the time on task; ``ground_truth`` (a
  Label Studio server sets it on every imported annotation) is a mark kept in the
  annotator's note on the item, beside their labels: they stay that person's labels;
- drafts: draft labels of their user;
- predictions: evaluator scores (evaluator ``label-studio``, judge model the
  ``model_version``) where they are numbers (a binary choice with its confidence
  ``score`` is the chance of yes); other confidences, non-numeric predictions and
  predictions listed by id only are counted in the notes.

The export writes integer ``completed_by`` (the names in ``<out>.users.json``), drafts,
skips as cancelled annotations, lead times, the ground-truth mark where Label Studio set
it, evaluator scores as predictions typed to their question's control, and the labeling
config Label Studio needs to open the tasks (``<out>.label_config.xml``: every item field
an annotator sees, each question as Label Studio's own control). Final labels (a
reviewer's decision, no one's annotation), span answers marking nothing and scores no
control holds are counted in the notes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import quoteattr

from interop.base import (
    Converted,
    Tagged,
    existing,
    fail,
    label,
    read_json_records,
    user_names,
)
from interop.label_studio_controls import (
    answer,
    choice_values,
    control,
    prediction,
    result_value,
    results,
    score,
)
from kinds.base import ItemField

if TYPE_CHECKING:
    from annotation_store import Store
    from kinds import HumanField

WRITES = ("items", "annotations")


def _annotator(completed_by: Any, users: dict[str, str]) -> str | None:
    if isinstance(completed_by, dict):
        return (
            completed_by.get("email")
            or completed_by.get("username")
            or (_annotator(completed_by["id"], users) if "id" in completed_by else None)
        )
    if isinstance(completed_by, int | str) and str(completed_by).strip():
        return users.get(str(completed_by), f"ls-user-{completed_by}")
    return None


def users_file(path: Path) -> Path:
    """Where the names of an export's integer user ids are kept."""
    return path.with_name(f"{path.stem}.users.json")


def _users(path: Path) -> dict[str, str]:
    return user_names(users_file(path))


def _results(out: Converted, where: str, results: Any, **row: Any) -> None:
    """One label row per field: a field's span results (one per span) are one answer."""
    if not isinstance(results, list):
        raise fail(out.display, where, "'result' must be a list")
    spans: dict[Any, Tagged] = {}
    for result in results:
        field = result.get("from_name") if isinstance(result, dict) else None
        at = f"{where}, result {field!r}"
        tagged = label(out.display, at, lambda r=result: result_value(r), field=field, **row)
        if result.get("type") != "labels":
            out.annotations.append(tagged)
        elif field in spans:
            spans[field].row["value"].extend(tagged.row["value"])
        else:
            spans[field] = tagged
            out.annotations.append(tagged)


def _entries(
    out: Converted, task: dict[str, Any], key: str, where: str, ids: list[int]
) -> list[dict[str, Any]]:
    """A task's annotations, drafts or predictions; ids (an export that lists them by id)
    are counted in ``ids`` and skipped."""
    entries = task.get(key) or []
    if not isinstance(entries, list):
        raise fail(out.display, where, f"{key!r} must be a list")
    objects = []
    for entry in entries:
        if isinstance(entry, int) and not isinstance(entry, bool):
            ids.append(entry)
        elif isinstance(entry, dict):
            objects.append(entry)
        else:
            raise fail(out.display, where, f"{key!r} must be a list of objects (or of ids)")
    return objects


def _predictions(out: Converted, where: str, item_id: Any, predictions: list[dict]) -> None:
    """Predictions as evaluator scores, resolved once the fields are known."""
    for p_index, made in enumerate(predictions, 1):
        model = made.get("model_version") or None
        for result in made.get("result") or []:
            field = result.get("from_name") if isinstance(result, dict) else None
            at = f"{where}, prediction {p_index}, result {field!r}"
            row = {"item_id": item_id, "evaluator": "label-studio", "field": field}
            scored = label(out.display, at, lambda r=result: result_value(r), **row)
            confidence = made.get("score")
            out.scores.append(
                Tagged(at, {**scored.row, "judge_model": model, CONFIDENCE: confidence})
            )


#: a prediction's confidence, carried until :func:`_resolve` reads it
CONFIDENCE = "_confidence"


def _resolve(out: Converted, fields: Mapping[str, Any]) -> None:
    """Values read from results made answers of the project's fields; predictions made
    scores (a binary choice with its confidence), the rest dropped with a note."""
    rows = out.annotations
    for n, t in enumerate(rows):
        spec = fields.get(str(t.row.get("field")))
        if spec is not None:
            try:
                rows[n] = Tagged(t.record, {**t.row, "value": answer(spec, t.row["value"])})
            except ValueError as exc:
                raise fail(out.display, t.record, str(exc)) from None
    kept, dropped, unused = [], Counter(), 0
    for t in out.scores:
        row = dict(t.row)
        confidence = row.pop(CONFIDENCE, None)
        spec = fields.get(str(row.get("field")))
        value = score(spec, row["value"], confidence)
        if value is None:
            dropped[row.get("field")] += 1
            continue
        binary = spec is not None and spec.question_type.name == "binary"
        unused += confidence is not None and not (binary and isinstance(row["value"], str))
        kept.append(Tagged(t.record, {**row, "value": value}))
    out.scores = kept
    if unused:
        out.notes.append(f"{unused} prediction confidence scores not imported")
    out.notes.extend(
        f"{n} predictions of {field!r} hold no number and are not imported as scores"
        for field, n in sorted(dropped.items(), key=str)
    )


def read(path: str | Path) -> Converted:
    """Items, labels (drafts included), time on task and prediction scores of a Label
    Studio JSON export."""
    p = existing(path)
    out = Converted(p.name, time_source="Label Studio lead_time", resolve=_resolve)
    users = _users(p)
    empty_skips = 0
    ids: dict[str, list[int]] = {"annotations": [], "drafts": [], "predictions": []}
    for index, task in enumerate(read_json_records(p, p.name), start=1):
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise fail(p.name, f"task {index}", "a task needs a 'data' object")
        data = dict(task["data"])
        item_id = data.pop("item_id", None) or task.get("id")
        where = f"task {index} (id {task.get('id')})"
        out.items.append(Tagged(where, {"item_id": item_id, **data}))
        annotations = _entries(out, task, "annotations", where, ids["annotations"])
        for a_index, ann in enumerate(annotations, start=1):
            at = f"{where}, annotation {a_index}"
            annotator = _annotator(ann.get("completed_by"), users)
            if annotator is None:
                raise fail(p.name, at, "no completed_by")
            status = "skipped" if ann.get("was_cancelled") else "submitted"
            row = {"item_id": item_id, "annotator": annotator, "status": status}
            _results(out, at, ann.get("result") or [], **row)
            if ann.get("ground_truth") and ann.get("result"):
                out.marks.append((item_id, annotator, GROUND_TRUTH))
            empty_skips += status == "skipped" and not ann.get("result")
            if ann.get("lead_time") is not None:
                out.seconds.append((item_id, annotator, ann.get("lead_time")))
        for d_index, draft in enumerate(_entries(out, task, "drafts", where, ids["drafts"]), 1):
            at = f"{where}, draft {d_index}"
            annotator = _annotator(draft.get("completed_by", draft.get("user")), users)
            if annotator is None:
                raise fail(p.name, at, "a draft needs its user")
            row = {"item_id": item_id, "annotator": annotator, "status": "draft"}
            _results(out, at, draft.get("result") or [], **row)
        predictions = _entries(out, task, "predictions", where, ids["predictions"])
        _predictions(out, where, item_id, predictions)
    if empty_skips:
        out.notes.append(
            f"{empty_skips} cancelled (skipped) annotations hold no result and are not imported"
        )
    marked = len(out.marks)
    if marked:
        out.notes.append(
            f"{marked} annotations marked ground truth: kept as their annotator's labels, "
            f"the mark in the annotator's note on the item ({GROUND_TRUTH!r})"
        )
    out.notes.extend(
        f"{len(found)} {key} listed by id only skipped (export with full {key} to bring them in)"
        for key, found in ids.items()
        if found
    )
    return out


#: the note beside an annotator's labels that Label Studio marked their annotation
GROUND_TRUTH = "ground truth in Label Studio"


def _user_ids(names: list[str]) -> dict[str, int]:
    """Label Studio's integer user ids for the workbench's annotator names."""
    return {name: n for n, name in enumerate(sorted(set(names)), start=1)}


@dataclass(frozen=True)
class Layout:
    """The config's object tags: item field -> object name, and the object a question
    about the whole item points at."""

    objects: dict[str, str]
    default: str
    lines: tuple[str, ...]


def layout(kind: Any, settings: Any) -> Layout:
    """Every item field an annotator sees (hidden fields left out), each under a header:
    chats as ``<Paragraphs>`` (turns' role and content), objects as ``<Table>`` (a Label
    Studio server refuses tasks whose ``<Text>`` value is an object), the rest as
    ``<Text>``."""
    questions = {f.name for f in kind.human_fields(settings)}
    shown = [f for f in kind.item_fields if not f.hidden] or [ItemField("text")]
    objects, lines = {}, []
    for f in shown:
        name = f.name if f.name not in questions else f"{f.name}_field"
        objects[f.name] = name
        value = quoteattr("$" + f.name)
        lines.append(f"  <Header value={quoteattr(f.name)}/>")
        if f.role == "chat":
            lines.append(
                f'  <Paragraphs name={quoteattr(name)} value={value} nameKey="role" '
                'textKey="content"/>'
            )
        elif f.kind == "object":
            lines.append(f"  <Table name={quoteattr(name)} value={value}/>")
        else:
            lines.append(f"  <Text name={quoteattr(name)} value={value}/>")
    outputs = [f.name for f in shown if f.output]
    return Layout(objects, objects[(outputs or [shown[0].name])[0]], tuple(lines))


def tasks(
    store: Store, project: str, with_labels: bool = True, notes: list[str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The project as Label Studio tasks (one annotation or draft per annotator and item,
    ground truth where Label Studio had marked it, evaluator scores as predictions where
    the question's control holds a number) and the user ids used; what Label Studio cannot
    hold is counted in ``notes``."""
    from annotating.progress_marks import marked
    from interop.exporting import annotations_export_frame, items_frame
    from interop.frames import records

    notes = notes if notes is not None else []
    info = store.project(project)
    fields = {f.name: f for f in info.task_kind.human_fields(info.settings)}
    shape = layout(info.task_kind, info.settings)
    tasks_by_item: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(records(items_frame(store, project)), start=1):
        data = {k: v for k, v in row.items() if v is not None}
        # a Label Studio server refuses a task lacking a value its config shows
        data.update({name: "" for name in shape.objects if name not in data})
        tasks_by_item[row["item_id"]] = {
            "id": n,
            "data": data,
            "annotations": [],
            "drafts": [],
            "predictions": [],
        }
    if not with_labels:
        return list(tasks_by_item.values()), {}
    rows = records(annotations_export_frame(store, project))
    _count_finals(store, project, notes)
    ids = _user_ids([r["annotator"] for r in rows])
    truth = marked(store, project, GROUND_TRUTH)
    seconds = {
        (r.item_id, r.annotator): r.seconds_spent
        for r in store.progress_frame(project).itertuples()
    }
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    empty = Counter()
    for row in rows:
        key = (row["item_id"], row["annotator"])
        task = tasks_by_item[row["item_id"]]
        ann = grouped.get(key)
        if ann is None:
            ann = grouped[key] = {"id": len(grouped) + 1, "result": [], "task": task["id"]}
            when = str(row["updated_at"]).replace(" ", "T")
            ann.update(completed_by=ids[row["annotator"]], created_at=when, updated_at=when)
            if row["status"] == "draft":
                task["drafts"].append(ann)
            else:
                ann.update(
                    was_cancelled=row["status"] == "skipped",
                    ground_truth=key in truth,
                    lead_time=seconds.get(key) or None,
                )
                task["annotations"].append(ann)
        spec = fields[row["field"]]
        found = results(spec, row["value"], shape.objects, shape.default, task["data"])
        empty[row["field"]] += not found
        ann["result"].extend(found)
    notes.extend(
        f"{n} answers of {field!r} marking no span hold no Label Studio result (not written)"
        for field, n in sorted(empty.items())
        if n
    )
    _add_predictions(store, project, fields, tasks_by_item, shape, notes)
    return list(tasks_by_item.values()), ids


def _count_finals(store: Store, project: str, notes: list[str]) -> None:
    """Final labels are a reviewer's decision; a Label Studio annotation is one person's
    answer (its ground-truth flag marks an annotation), so they are counted, not written."""
    from adjudication.final_labels import adjudications

    count = len(adjudications(store, project))
    if count:
        notes.append(
            f"{count} final labels not written (Label Studio keeps one person's answers per "
            "annotation; a final label is a reviewer's decision)"
        )


def _add_predictions(
    store: Store,
    project: str,
    fields: dict[str, HumanField],
    tasks: dict[str, dict[str, Any]],
    shape: Layout,
    notes: list[str],
) -> None:
    from interop.exporting import scores_export_frame
    from interop.frames import records

    by_run: dict[tuple[str, str, Any, Any], dict[str, Any]] = {}
    skipped: Counter[str] = Counter()
    for row in records(scores_export_frame(store, project)):
        if row["item_id"] not in tasks:
            continue
        spec = fields.get(row["field"])
        found = spec and prediction(spec, row["value"], shape.objects, shape.default)
        if found is None:
            skipped[row["field"]] += 1
            continue
        result, confidence = found
        version = "/".join(str(p) for p in (row["evaluator"], row["judge_model"]) if p)
        key = (row["item_id"], row["evaluator"], row["judge_model"], row["run"])
        task = tasks[row["item_id"]]
        if key not in by_run:
            by_run[key] = {"model_version": version, "result": [], "task": task["id"]}
            task["predictions"].append(by_run[key])
        if confidence is not None:
            by_run[key]["score"] = confidence
        by_run[key]["result"].append(result)
    notes.extend(
        f"{n} evaluator scores of {field!r} not written as predictions (no Label Studio "
        "control of its question holds such a number)"
        for field, n in sorted(skipped.items())
    )


def label_config(store: Store, project: str) -> str:
    """A labeling config under which Label Studio opens the exported tasks: every item
    field an annotator sees, then each question's prompt and control (a condition as
    ``visibleWhen`` where the question it names is a choice)."""
    info = store.project(project)
    shape = layout(info.task_kind, info.settings)
    specs = info.task_kind.human_fields(info.settings)
    lines = ["<View>", *shape.lines]
    for f in specs:
        if f.description:
            lines.append(f"  <Header value={quoteattr(f.description)}/>")
        tag = control(f, shape.objects, shape.default)
        lines += _conditioned(tag, f, {s.name: s for s in specs})
    return "\n".join([*lines, "</View>", ""])


def _conditioned(tag: list[str], spec: Any, specs: Mapping[str, Any]) -> list[str]:
    """The control shown only when the question its ``show_if`` names has a listed
    choice (Label Studio's ``visibleWhen="choice-selected"``)."""
    if not spec.show_if or spec.show_if[0] not in specs:
        return tag
    other = specs[spec.show_if[0]]
    values = choice_values(other, spec.show_if[1])
    if values is None:
        return tag
    when = (
        f' visibleWhen="choice-selected" whenTagName={quoteattr(other.name)}'
        f" whenChoiceValue={quoteattr(','.join(values))}"
    )
    first = tag[0]
    end = "/>" if first.endswith("/>") else ">"
    return [first[: -len(end)] + when + end, *tag[1:]]


def config_file(path: Path) -> Path:
    """Where the export's labeling config is written."""
    return path.with_name(f"{path.stem}.label_config.xml")


def write(
    store: Store, project: str, what: str, out: str | Path, notes: list[str] | None = None
) -> int:
    """Write a Label Studio JSON export, its labeling config and its user ids; returns the
    number of tasks."""
    data, ids = tasks(store, project, with_labels=what == "annotations", notes=notes)
    path = Path(out)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    config_file(path).write_text(label_config(store, project), encoding="utf-8")
    if ids:
        names = {str(n): name for name, n in ids.items()}
        users_file(path).write_text(json.dumps(names, ensure_ascii=False, indent=1), "utf-8")
    return len(data)
