"""Labels for the contract tests' example projects: three annotators answer every
question of every item, each answer built for its question type and checked by that
type's own ``validate`` before it goes through the workbench's label import.

The answers follow a fixed pattern (no randomness): annotators ``ann-1`` and ``ann-2``
mostly agree and ``ann-3`` differs more often (where a question has more than one
possible answer), so agreement has something to measure. A
question that another question's ``show_if`` names is answered so that the dependent
question is asked, which keeps every answer one an annotator could really give.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

ANNOTATORS = ("ann-1", "ann-2", "ann-3")
#: how far each annotator's pick moves from ann-1's on item ``i``: ann-2 differs on every
#: third item, ann-3 on every item
SHIFTS = (lambda i: 0, lambda i: int(i % 3 == 2), lambda i: 1 + i % 2)


def _binary(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    return [1, 0]


def _labels(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    return list(spec.values)


def _multi(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    v = list(spec.values)
    return [[v[0]], [v[0], v[-1]], [], v[1:2]]


def _score(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    lo, hi = spec.minimum, spec.maximum
    return [hi, round(lo + (hi - lo) * 0.75, 2), lo, round(lo + (hi - lo) / 2, 2)]


def _text(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    return ["reads fine", 'says "maybe", then "no"', "line one\nline two"]


def _pairwise(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    out = list(spec.outputs)
    strengths = list(spec.strengths) or [None]
    answers = [
        {"choice": out[0], "shown": out, "strength": strengths[-1]},
        {"choice": out[1], "shown": out[::-1], "strength": strengths[0]},
        {"choice": out[0], "shown": out[::-1], "strength": strengths[0]},
    ]
    if spec.allow_tie:
        answers.append({"choice": "tie", "shown": out})
    return answers


def _spans(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    size = len(str(fields.get(spec.source_field, "")))
    if size < 2:
        return [[]]
    v = list(spec.values)
    mid = size // 2
    return [
        [{"start": 0, "end": mid, "label": v[0]}],
        [{"start": 0, "end": mid, "label": v[0]}, {"start": mid, "end": size, "label": v[-1]}],
        [{"start": 1, "end": size, "label": v[1 % len(v)]}],
        [],
    ]


def _ranking(spec: Any, fields: Mapping[str, Any]) -> list[Any]:
    out = list(spec.outputs)
    orders: list[Any] = [list(p) for p in itertools.permutations(out)][:4]
    if spec.allow_tie:
        orders.insert(2, [out[:2], out[2:]] if len(out) > 2 else [out])
    return orders


#: candidate answers per question type name (kinds/question_types/*)
CANDIDATES: dict[str, Callable[[Any, Mapping[str, Any]], list[Any]]] = {
    "binary": _binary,
    "single": _labels,
    "likert": _labels,
    "multi": _multi,
    "score": _score,
    "text": _text,
    "pairwise": _pairwise,
    "spans": _spans,
    "ranking": _ranking,
}


def _asks_dependents(spec: Any, specs: list[Any], answer: Any) -> bool:
    """Whether ``answer`` to ``spec`` makes every question conditioned on it shown."""
    qt = spec.question_type
    for other in specs:
        if other.show_if and other.show_if[0] == spec.name:
            key = qt.condition_key(spec, _choice(spec, answer)) if qt.condition_key else None
            if key not in other.show_if[1]:
                return False
    return True


def _choice(spec: Any, answer: Any) -> Any:
    """The part of an answer a condition names (a pairwise answer's choice)."""
    canonical = spec.validate(answer)
    return canonical["choice"] if isinstance(canonical, dict) else canonical


def label_rows(specs: list[Any], items: list[Any]) -> list[dict[str, Any]]:
    """``item_id, annotator, field, value`` rows: every annotator, item and question.

    A question type without candidates here is a SystemExit naming it, so a new type
    cannot slip past the contract tests unlabelled."""
    rows = []
    for spec in specs:
        name = spec.question_type.name
        if name not in CANDIDATES:
            raise SystemExit(f"no example answers for question type {name!r} ({spec.name})")
        for i, item in enumerate(items):
            options = [
                a for a in CANDIDATES[name](spec, item.fields) if _asks_dependents(spec, specs, a)
            ]
            for a, annotator in enumerate(ANNOTATORS):
                value = options[(i + SHIFTS[a](i)) % len(options)]
                spec.validate(value, item.fields)  # the type's own check, before import
                rows.append(
                    {
                        "item_id": item.item_id,
                        "annotator": annotator,
                        "field": spec.name,
                        "value": value,
                    }
                )
    return rows


def add_example_labels(store: Any, project: str) -> int:
    """Submit every annotator's answers to every question of ``project``; the count."""
    import pandas as pd

    from workbench_api import add_labels

    info = store.project(project)
    specs = list(info.task_kind.human_fields(info.settings))
    rows = label_rows(specs, store.items(project))
    add_labels(store, project, pd.DataFrame(rows))
    return len(rows)
