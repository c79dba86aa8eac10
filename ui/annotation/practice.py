"""A study's practice items in the annotation client: drawn like items, checked here.

A training item (``StudySettings.training``) is not in the store: its fields and gold
answers live in the study's settings. The client draws it as it draws an item (the same
panels, chat fields as turns, the same questions, options and keys: ``fast_lane``'s
payload), asking the questions its gold answers name, each one required, as the
practice form did. The answer goes to ``POST /api/annotate/practice`` once, whole; the
server turns it into values, stores it (``crowd.record_training_answer``: the first
answer per item counts) and alone decides whether it was right. The client shows that
verdict, the gold answer (marked on its options) and the explanation, then the next
practice item; after the last one the page is loaded again, and the study flow judges
the qualification as before (``ui.study.training``). No Streamlit here.
"""

from __future__ import annotations

from typing import Any

from annotating.item_view import ItemView, Target, build_targets
from annotation_store import AnnotatorInfo, ProjectInfo, Store
from annotation_store.records import ItemRecord
from crowd import workers as crowd
from kinds import FieldType
from kinds.base import FACT_UNSET
from studies.flow_settings import StudySettings, TrainingItem, study_of
from ui.annotation.fast_lane import LaneError, panels, target_payload
from ui.annotation.options import by_value, chosen_index, options, value_of

#: The stage at which a worker answers practice items.
STAGE = "training"
TITLE = "Practice"


def practice_view(
    store: Store,
    project: ProjectInfo,
    user: AnnotatorInfo,
    item: TrainingItem,
    labels: dict[str, Any] | None = None,
) -> ItemView:
    """The training item as an item view (nothing read from the store): its fields,
    ``labels`` as the saved answers (the gold ones, to mark them), and a target for
    each question its gold answers name."""
    record = ItemRecord(0, f"practice:{item.id}", 0, dict(item.fields))
    fields = {f.name: f for f in project.task_kind.human_fields(project.settings)}
    state = {"labels": dict(labels or {}), "status": None, "flagged": False, "note": None}
    view = ItemView(store, project, record, user, state, fields)
    view.targets = [t for t in build_targets(view, every=True) if t.field.name in item.answers]
    return view


def _ref(item: TrainingItem) -> str:
    return f"practice:{item.id}"


def payload(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, study: StudySettings, item_id: str
) -> dict[str, Any]:
    """What the client draws for the training item ``item_id`` (see ``payload_of`` in
    ``ui.annotation.fast_lane``: the same keys, plus ``practice``: its id, number and
    the number of items)."""
    items = list(study.training)
    number = next(n for n, t in enumerate(items, 1) if t.id == item_id)
    item = items[number - 1]
    view = practice_view(store, project, user, item)
    return {
        "ref": _ref(item),
        "name": f"practice item {number} of {len(items)}",
        "kind": project.task_kind.title,
        "title": TITLE,
        "status": "new",
        "flagged": False,
        "note": "",
        "mayskip": False,
        "panels": panels(view),
        "targets": [target_payload(view, t, asked=True, required=True) for t in view.targets],
        "scores": [],
        "conditional": False,
        "practice": {"id": item.id, "number": number, "total": len(items)},
    }


def next_item(study: StudySettings, part: crowd.Participant) -> TrainingItem | None:
    """The first training item the worker has not answered (None: all answered)."""
    answered = {a["id"] for a in part.training}
    return next((t for t in study.training if t.id not in answered), None)


def answers_of(view: ItemView, chosen: dict[str, Any]) -> dict[str, Any]:
    """The client's answer (target key -> option index, or a value question's value)
    as the values the study stores; LaneError 409 naming what is missing, 400 for an
    answer that names no option."""
    answers: dict[str, Any] = {}
    missing: list[str] = []
    by_field: dict[str, list[Target]] = {}
    for target in view.targets:
        by_field.setdefault(target.field.name, []).append(target)
    for name, targets in by_field.items():
        values = []
        for target in targets:
            given = chosen.get(target.key)
            if given is None:
                missing.append(target.key)
                continue
            try:
                values.append(value_of(target, options(view, target), given))
            except ValueError as exc:
                raise LaneError(str(exc), 400) from None
        if len(values) < len(targets):
            continue
        spec = targets[0].field
        answers[name] = values if spec.type is FieldType.FACT_LABELS else values[0]
    if missing:
        raise LaneError("Answer every question first: " + ", ".join(missing), 409)
    return answers


def _expected(view: ItemView) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The gold answer (``view``'s labels) as the client marks it (target key -> option
    index, or a value) and as words (each question's title with its answer's label)."""
    gold: dict[str, Any] = {}
    words: list[dict[str, str]] = []
    for target in view.targets:
        opts = options(view, target)
        index = chosen_index(view, target, opts)
        gold[target.key] = index
        title = target_payload(view, target, asked=True, required=True)["title"]
        if index is None or by_value(target.field):
            raw = view.value(target)
            answer = "" if raw is None or raw == FACT_UNSET else str(raw)
        elif isinstance(index, list) and any(isinstance(g, list) for g in index):
            # a ranking, best first; outputs placed level share a place
            answer = ", ".join(" = ".join(opts[i].label for i in g) for g in index)
        elif isinstance(index, list):
            answer = ", ".join(opts[i].label for i in index)
        else:
            answer = opts[index].label
        words.append({"title": title, "answer": answer})
    return gold, words


def expected_answer(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item: TrainingItem
) -> list[dict[str, str]]:
    """Each question of the training item with its gold answer in words: the question's
    title and the label of the expected option (a value question's value)."""
    return _expected(practice_view(store, project, user, item, item.answers))[1]


def verdict(correct: bool, expected: list[dict[str, str]]) -> str:
    """The verdict in one sentence, as the client and the practice form both say it."""
    if correct:
        return "Right."
    words = "; ".join(
        f"{e['title']}: {e['answer']}" if e["title"] else e["answer"] for e in expected
    )
    return f"Not quite. The expected answer is {words}."


def check(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, body: dict[str, Any]
) -> dict[str, Any]:
    """Store the worker's answer to one training item and say whether it was right:
    ``{"correct", "verdict", "gold", "expected", "explanation", "next"}`` (``next``: the next
    training item's payload, None after the last). LaneError 409 once the worker is no
    longer at the practice stage, or when a question has no answer; 404 for an item
    that is not the study's."""
    study = study_of(project.settings)
    part = crowd.participant(store, project.name, user.name)
    if part is None or part.stage != STAGE:
        raise LaneError("the study has moved on for you: reload the page", 409)
    item_id = str(body.get("item", ""))
    item = next((t for t in study.training if t.id == item_id), None)
    if item is None:
        raise LaneError(f"no practice item {item_id!r} in this study", 404)
    chosen = body.get("chosen")
    if not isinstance(chosen, dict):
        raise LaneError("malformed request", 400)
    given = answers_of(practice_view(store, project, user, item), chosen)
    crowd.record_training_answer(store, project.name, user.name, item.id, given)
    now = crowd.participant(store, project.name, user.name)
    assert now is not None
    # the first answer to an item is the one that counts (and the one reported)
    correct = next(bool(a["correct"]) for a in now.training if a["id"] == item.id)
    gold, expected = _expected(practice_view(store, project, user, item, item.answers))
    after = next_item(study, now)
    return {
        "correct": correct,
        "verdict": verdict(correct, expected),
        "gold": gold,
        "expected": expected,
        "explanation": item.explanation,
        "next": payload(store, project, user, study, after.id) if after else None,
    }
