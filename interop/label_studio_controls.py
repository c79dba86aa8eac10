"""Each question type as Label Studio's own control, both ways.

Out: the control tag of a question (``<Choices>``, ``<Rating>``, ``<Number>``,
``<TextArea>``, ``<Labels>``, ``<Pairwise>``), its answers as that control's results and
an evaluator score as a prediction result where the control can hold it. In: a result
read without the project (:func:`result_value`) made into the question's answer once the
project's field is known (:func:`answer`).

- binary: ``<Choices>`` of ``no`` / ``yes``; a score (the chance of yes) is the choice
  with the prediction's ``score`` as its confidence;
- single: ``<Choices>``; multi-label: ``<Choices choice="multiple">``;
- Likert with levels 1..N: ``<Rating maxRating="N">``; other levels (0..2, 0.0..1.0):
  ``<Number>`` bounded by the lowest and highest level, stepped by their spacing;
- score: ``<Number min max>``; free text: ``<TextArea>``;
- spans: ``<Labels>`` on the source field, one ``labels`` result per span;
- pairwise over two outputs without tie or strength: ``<Pairwise>`` (left is the first
  output); otherwise ``<Choices>`` of the outputs (``answer_a (clearly)`` with a
  strength) and ``tie``;
- anything else (rankings, fact lists, plugin types): the type's own hooks, by default
  the answer as JSON text in a ``<TextArea>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import quoteattr

from kinds.values import TIE

BINARY_CHOICES = ("no", "yes")


def _rating_top(spec: Any) -> int | None:
    """N when the Likert levels are exactly 1..N (Label Studio's stars), else None."""
    levels = list(spec.values or ())
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in levels)
    return len(levels) if whole and sorted(levels) == list(range(1, len(levels) + 1)) else None


def _step(levels: Sequence[float]) -> float | None:
    """The common spacing of sorted levels, or None when they are not evenly spaced."""
    ordered = sorted(float(v) for v in levels)
    gaps = {round(b - a, 9) for a, b in zip(ordered, ordered[1:], strict=False)}
    return gaps.pop() if len(gaps) == 1 else None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def pairwise_choices(spec: Any) -> list[str] | None:
    """The ``<Choices>`` values of a pairwise question, or None when ``<Pairwise>`` fits."""
    if len(spec.outputs) == 2 and not spec.allow_tie and not spec.strengths:
        return None
    values = []
    for output in spec.outputs:
        values.append(output)
        values += [f"{output} ({s})" for s in spec.strengths]
    return values + ([TIE] if spec.allow_tie else [])


def _choices(name: str, to_name: str, values: Sequence[Any], multiple: bool = False) -> list[str]:
    kind = "multiple" if multiple else "single"
    lines = [f'  <Choices name={quoteattr(name)} toName={quoteattr(to_name)} choice="{kind}">']
    lines += [f"    <Choice value={quoteattr(str(v))}/>" for v in values]
    return [*lines, "  </Choices>"]


def control(spec: Any, objects: Mapping[str, str], default: str) -> list[str]:
    """The config lines of one question; ``objects`` maps item fields to object names,
    ``default`` is the object a control about the whole item points at."""
    name, kind = spec.name, spec.question_type.name
    q = quoteattr(name)
    if kind == "binary":
        return _choices(name, default, BINARY_CHOICES)
    if kind == "single":
        return _choices(name, default, spec.values)
    if kind == "multi":
        return _choices(name, default, spec.values, multiple=True)
    if kind == "likert" and spec.values:
        top = _rating_top(spec)
        if top is not None:
            return [f'  <Rating name={q} toName={quoteattr(default)} maxRating="{top}"/>']
        lo, hi, step = min(spec.values), max(spec.values), _step(spec.values)
        bounds = f'min="{_number(lo)}" max="{_number(hi)}"'
        bounds += f' step="{_number(step)}"' if step else ""
        return [f"  <Number name={q} toName={quoteattr(default)} {bounds}/>"]
    if kind == "score":
        bounds = ""
        if spec.minimum is not None and spec.maximum is not None:
            bounds = f' min="{_number(spec.minimum)}" max="{_number(spec.maximum)}"'
        return [f"  <Number name={q} toName={quoteattr(default)}{bounds}/>"]
    if kind == "text":
        return [f"  <TextArea name={q} toName={quoteattr(default)}/>"]
    if kind == "spans":
        source = objects.get(spec.source_field or "", default)
        lines = [f"  <Labels name={q} toName={quoteattr(source)}>"]
        lines += [f"    <Label value={quoteattr(str(v))}/>" for v in spec.values]
        return [*lines, "  </Labels>"]
    if kind == "pairwise":
        targets = ",".join(objects.get(o, o) for o in spec.outputs)
        values = pairwise_choices(spec)
        if values is None:
            return [f"  <Pairwise name={q} toName={quoteattr(targets)}/>"]
        return _choices(name, targets, values)
    lines = spec.question_type.label_studio_control(spec, q)
    return [line.replace('toName="item"', f"toName={quoteattr(default)}") for line in lines]


def _to_name(spec: Any, objects: Mapping[str, str], default: str) -> str:
    kind = spec.question_type.name
    if kind == "spans":
        return objects.get(spec.source_field or "", default)
    if kind == "pairwise":
        return objects.get(spec.outputs[0], spec.outputs[0])
    return default


def results(
    spec: Any, value: Any, objects: Mapping[str, str], default: str, item: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """An answer as the control's results (spans: one per span; ``[]`` when none)."""
    base = {"from_name": spec.name, "to_name": _to_name(spec, objects, default)}
    kind = spec.question_type.name
    if kind == "binary":
        chosen = BINARY_CHOICES[1 if int(value) else 0]
        return [{**base, "type": "choices", "value": {"choices": [chosen]}}]
    if kind == "single":
        return [{**base, "type": "choices", "value": {"choices": [str(value)]}}]
    if kind == "multi":
        return [{**base, "type": "choices", "value": {"choices": [str(v) for v in value]}}]
    if kind == "likert" and spec.values:
        if _rating_top(spec) is not None:
            return [{**base, "type": "rating", "value": {"rating": int(value)}}]
        return [{**base, "type": "number", "value": {"number": value}}]
    if kind == "score":
        return [{**base, "type": "number", "value": {"number": value}}]
    if kind == "text":
        return [{**base, "type": "textarea", "value": {"text": [str(value)]}}]
    if kind == "spans":
        text = str(item.get(spec.source_field or "", ""))
        return [
            {
                **base,
                "type": "labels",
                "value": {
                    "start": s["start"],
                    "end": s["end"],
                    "text": text[s["start"] : s["end"]],
                    "labels": [s["label"]],
                },
            }
            for s in value
        ]
    if kind == "pairwise":
        # the order the outputs were shown in rides in the result's meta
        meta = {"meta": {"shown": list(value["shown"])}} if value.get("shown") else {}
        if pairwise_choices(spec) is None:
            side = "left" if value["choice"] == spec.outputs[0] else "right"
            return [{**base, "type": "pairwise", "value": {"selected": side}, **meta}]
        choice = value["choice"]
        if value.get("strength"):
            choice = f"{choice} ({value['strength']})"
        return [{**base, "type": "choices", "value": {"choices": [choice]}, **meta}]
    return [{**base, **spec.question_type.label_studio_result(spec, value)}]


def prediction(
    spec: Any, score: float, objects: Mapping[str, str], default: str
) -> tuple[dict[str, Any], float | None] | None:
    """An evaluator score as a prediction result and its confidence, or None when the
    question's control cannot hold a number."""
    base = {"from_name": spec.name, "to_name": _to_name(spec, objects, default)}
    kind = spec.question_type.name
    if kind == "binary" and 0 <= score <= 1:
        chosen = BINARY_CHOICES[1 if score >= 0.5 else 0]
        confidence = score if score >= 0.5 else 1 - score
        return {**base, "type": "choices", "value": {"choices": [chosen]}}, confidence
    if kind == "likert" and spec.values:
        if _rating_top(spec) is None:
            return {**base, "type": "number", "value": {"number": score}}, None
        if float(score).is_integer() and int(score) in spec.values:
            return {**base, "type": "rating", "value": {"rating": int(score)}}, None
        return None
    if kind == "score":
        return {**base, "type": "number", "value": {"number": score}}, None
    return None


def choice_values(spec: Any, answers: Sequence[Any]) -> list[str] | None:
    """The choices of ``spec``'s ``<Choices>`` that hold one of ``answers`` (a condition
    naming it), or None when its control is no ``<Choices>``."""
    kind = spec.question_type.name
    if kind == "binary":
        return [BINARY_CHOICES[1 if int(a) else 0] for a in answers]
    if kind in ("single", "multi"):
        return [str(a) for a in answers]
    if kind == "pairwise" and pairwise_choices(spec) is not None:
        wanted = {str(a) for a in answers}
        return [v for v in pairwise_choices(spec) or [] if v.split(" (")[0] in wanted]
    return None


# -- reading ---------------------------------------------------------------------------


def result_value(result: Any) -> Any:
    """What one result holds, before the question is known: a choice (one) or choices,
    a rating or number, text, a span ``{start, end, label}`` list or ``{"selected": side}``."""
    if not isinstance(result, dict):
        raise ValueError("a result must be an object")
    kind = result.get("type")
    value = result.get("value") or {}
    if not isinstance(value, dict):
        raise ValueError("a result's value must be an object")
    meta = result.get("meta")
    shown = meta.get("shown") if isinstance(meta, dict) else None
    if kind == "choices":
        choices = value.get("choices") or []
        picked = choices[0] if len(choices) == 1 else choices
        return {"picked": picked, "shown": shown} if isinstance(shown, list) else picked
    if kind == "taxonomy":
        return [path[-1] for path in value.get("taxonomy") or [] if path]
    if kind in ("rating", "number"):
        return value.get(kind)
    if kind == "textarea":
        return "\n".join(value.get("text") or [])
    if kind == "labels":
        return [
            {"start": value.get("start"), "end": value.get("end"), "label": label}
            for label in value.get("labels") or []
        ]
    if kind == "pairwise":
        side = {"selected": value.get("selected")}
        return {**side, "shown": shown} if isinstance(shown, list) else side
    raise ValueError(
        f"result type {kind!r} is not supported "
        "(choices, taxonomy, rating, number, textarea, labels, pairwise)"
    )


def answer(spec: Any, value: Any) -> Any:
    """A value read by :func:`result_value` as the question's answer (the question's own
    validation checks it after)."""
    kind = spec.question_type.name
    if kind == "multi" and isinstance(value, str):
        return [value]
    if kind == "pairwise":
        shown = value.get("shown") if isinstance(value, dict) else None
        extra = {"shown": shown} if shown else {}
        if isinstance(value, dict) and "selected" in value:
            side = {"left": 0, "right": 1}.get(str(value["selected"]))
            if side is None or side >= len(spec.outputs):
                raise ValueError(f"pairwise selection {value['selected']!r} is not left or right")
            return {"choice": spec.outputs[side], **extra}
        picked = value.get("picked") if isinstance(value, dict) else value
        if isinstance(picked, str) and not picked.lstrip().startswith("{"):
            choice, _, strength = picked.partition(" (")
            out: dict[str, Any] = {"choice": choice.strip(), **extra}
            if strength.endswith(")"):
                out["strength"] = strength[:-1]
            return out
    if isinstance(value, dict) and set(value) == {"picked", "shown"}:
        return value["picked"]  # an order shown means nothing to other questions
    return value


def score(spec: Any, value: Any, confidence: Any) -> float | None:
    """A prediction's value as an evaluator score (binary: the chance of yes from the
    choice and its confidence), or None when it is no number."""
    if spec is not None and spec.question_type.name == "binary" and isinstance(value, str):
        yes = value.strip().lower() == BINARY_CHOICES[1]
        if value.strip().lower() not in BINARY_CHOICES:
            return None
        if isinstance(confidence, int | float) and 0 <= confidence <= 1:
            return round(confidence if yes else 1 - confidence, 12)
        return 1.0 if yes else 0.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None
