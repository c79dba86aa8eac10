"""Pairwise: which of two or more outputs is better, or a tie.

Stored as ``{"choice": <output field> | "tie", "shown": [outputs in the order the
annotator saw them], "strength": <level> | None}``. Agreement sees the choice (a nominal
answer; the order shown does not matter); the MT-Bench agreement and the Bradley-Terry
ranking of the systems are declared for it in :mod:`agreement.pairwise_choice`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    SYSTEMS_FORM,
    FormField,
    QuestionType,
    decoded,
    label_studio_targets,
    labels,
    mark_outputs,
    marked_outputs,
    output_fields,
    systems_context,
    text_box_labels,
)
from kinds.question_types.ranking import ranked, ranking_question
from kinds.values import TIE


def _parse(q: Any, where: str, fields: Any) -> dict[str, Any]:
    out = output_fields(q, where, fields)
    strengths = (
        labels({"labels": q["strength"]}, f"{where}.strength", needed=1)
        if ("strength" in q)
        else ()
    )
    return {
        "outputs": out["outputs"],
        "allow_tie": out["allow_tie"],
        "strengths": strengths,
        "systems": out["systems"],
    }


def _as_answer(spec: Any, value: Any) -> Any:
    """A bare choice (``"answer_a"``, ``"tie"``: a categorical score) or a ranking of the
    outputs, best first (Argilla's ranking question), as an answer object; else as given."""
    if isinstance(value, str) and value.strip() in (*spec.outputs, TIE):
        return {"choice": value.strip()}
    value = decoded(value, "a pairwise answer")
    if not isinstance(value, list | tuple) or not value:
        return value
    top = value[0] if isinstance(value[0], list | tuple) else [value[0]]
    if sorted(map(str, top)) == sorted(spec.outputs):
        return {"choice": TIE}
    if len(top) == 1 and len(value) > 1:
        return {"choice": str(top[0])}
    raise ValidationError("a ranking read as a pairwise answer puts one output first, or all level")


def _validate(spec: Any, value: Any, item_fields: Any, draft: bool) -> dict[str, Any]:
    value = _as_answer(spec, value)
    if not isinstance(value, Mapping):
        raise ValidationError("a pairwise answer must be an object with 'choice'")
    choice = str(value.get("choice", "")).strip()
    allowed = list(spec.outputs) + ([TIE] if spec.allow_tie else [])
    if choice not in allowed:
        raise ValidationError(f"choice {choice!r} is not one of {allowed}")
    shown = value.get("shown") or list(spec.outputs)
    if not isinstance(shown, list | tuple) or sorted(map(str, shown)) != sorted(spec.outputs):
        raise ValidationError(f"'shown' must list the outputs {list(spec.outputs)} once each")
    strength = value.get("strength")
    if strength is not None:
        if not spec.strengths:
            raise ValidationError("this question has no strength levels")
        if choice == TIE:
            raise ValidationError("a tie has no strength")
        if str(strength) not in spec.strengths:
            raise ValidationError(f"strength {strength!r} is not one of {list(spec.strengths)}")
        strength = str(strength)
    return {"choice": choice, "shown": [str(s) for s in shown], "strength": strength}


def _condition_key(spec: Any, answer: Any) -> Any:
    allowed = [*spec.outputs, TIE]
    if answer not in allowed:
        raise ValidationError(f"choice {answer!r} is not one of {allowed}")
    return answer


def _answer_text(spec: Any, value: Any, item_fields: Any) -> str:
    if not isinstance(value, Mapping):
        return str(value)
    strength = f" ({value['strength']})" if value.get("strength") else ""
    return f"{value.get('choice')}{strength}"


def _units(spec: Any, value: Any) -> list[tuple[str, Hashable]]:
    return [("", value.get("choice") if isinstance(value, dict) else None)]


#: Potato's pairwise tiles: the first output is A, the second B
POTATO_SIDES = ("A", "B")


def _potato_labels(spec: Any, value: Any) -> dict[str, str]:
    """Potato's pairwise form for two outputs: binary, ``{"selection": "A" | "B" |
    "tie"}``, or for a question with strengths its scale, ``{"scale_value": "-2"}``
    (below 0 prefers A, the size is the strength's place). The order the outputs were
    shown in has no place in either."""
    if len(spec.outputs) != 2:
        return text_box_labels(spec, value)
    answer = _validate(spec, value, None, False)
    sides = dict(zip(spec.outputs, POTATO_SIDES, strict=True))
    if not spec.strengths:
        return {"selection": sides.get(answer["choice"], TIE)}
    if answer["choice"] == TIE:
        return {"scale_value": "0"}
    size = spec.strengths.index(answer["strength"]) + 1 if answer["strength"] else 1
    return {"scale_value": str(-size if answer["choice"] == spec.outputs[0] else size)}


def _from_potato_labels(spec: Any, labels: Any) -> Any:
    """A pairwise answer from Potato's binary (``selection``) or scale (``scale_value``:
    below 0 prefers A, above 0 B; its size picks a strength when the question has them)."""
    if isinstance(labels, dict) and "text_box" in labels:
        return labels["text_box"]
    if not isinstance(labels, dict) or not ({"selection", "scale_value"} & set(labels)):
        raise ValueError("a Potato pairwise answer needs a selection or a scale_value")
    if len(spec.outputs) != 2:
        raise ValueError(f"Potato compares two outputs; this question has {len(spec.outputs)}")
    answer: dict[str, Any] = {"shown": list(spec.outputs)}
    if "selection" in labels:
        side = str(labels["selection"]).strip()
        sides = dict(zip(POTATO_SIDES, spec.outputs, strict=True))
        if side not in (*POTATO_SIDES, TIE):
            raise ValueError(f"selection {side!r} is not A, B or tie")
        return {**answer, "choice": sides.get(side, TIE)}
    try:
        point = float(labels["scale_value"])
    except (TypeError, ValueError):
        raise ValueError(f"scale_value {labels['scale_value']!r} is not a number") from None
    if point == 0:
        return {**answer, "choice": TIE}
    answer["choice"] = spec.outputs[0] if point < 0 else spec.outputs[1]
    size = int(abs(point))
    if spec.strengths and size == abs(point) and 1 <= size <= len(spec.strengths):
        answer["strength"] = spec.strengths[size - 1]
    return answer


def _from_potato(scheme: Any, text_field: str, losses: list[str]) -> dict[str, Any]:
    """Potato's ``pairwise`` scheme: its two compared texts (a list in ``items_key``)
    become two output fields."""
    key = str(scheme.get("items_key") or text_field)
    name = scheme.get("name")
    losses.append(
        f"scheme {name!r}: the two compared texts (a list in {key!r}) are the item "
        f"fields {key}_a and {key}_b"
    )
    if "labels" in scheme:
        losses.append(f"scheme {name!r}: labels (the names on the A and B tiles) not carried over")
    question: dict[str, Any] = {
        "outputs": [f"{key}_a", f"{key}_b"],
        "tie": bool(scheme.get("allow_tie", False)),
    }
    mode = scheme.get("mode", "binary")
    scale = scheme.get("scale") if isinstance(scheme.get("scale"), dict) else {}
    top = scale.get("max", 3)
    if mode == "scale" and isinstance(top, int) and not isinstance(top, bool) and top >= 1:
        question["strength"] = [str(i) for i in range(1, top + 1)]
        losses.append(f"scheme {name!r}: a scale point's size is its strength (1..{top})")
        if scale.get("labels"):
            losses.append(f"scheme {name!r}: the scale's labels not carried over")
    elif mode != "binary":
        losses.append(f"scheme {name!r}: {mode} mode read as a choice of A, B or a tie")
    return question


def _from_label_studio(tag: Any, fields: Any, losses: list[str]) -> dict[str, Any]:
    outputs = label_studio_targets(tag, fields)
    mark_outputs(outputs, fields)
    return {"outputs": outputs, "required": True}  # Label Studio always asks for a choice


def _argilla_response(spec: Any, value: Any, losses: list[str]) -> list[dict[str, Any]]:
    """The choice as a ranking: the chosen output first, the others level after it (a
    tie: all level). The strength and the order shown are left out."""
    choice = value["choice"]
    rest = [o for o in spec.outputs if o != choice]
    ranking = ranked([list(spec.outputs)] if choice == TIE else [[choice], rest])
    if value.get("strength"):
        losses.append("strength not exported (an Argilla ranking holds the order only)")
    if list(value.get("shown") or spec.outputs) != list(spec.outputs):
        losses.append("order shown not exported (an Argilla ranking holds the preference only)")
    return ranking


def _options(question: Any) -> list[Any]:
    return [*(question.get("outputs") or []), *([TIE] if question.get("tie", True) else [])]


PAIRWISE = register_question_type(
    QuestionType(
        name="pairwise",
        field_type=FieldType.PAIRWISE,
        order=70,
        title="pairwise (A / B / tie)",
        answer_shape='{"choice": output or "tie", "shown": outputs as shown, "strength"}',
        keys=("outputs", "systems", "tie", "strength"),
        parse=_parse,
        validate=_validate,
        condition_key=_condition_key,
        answer_text=_answer_text,
        level=Level.NOMINAL,
        agreement_levels=(Level.NOMINAL,),  # the winner (or tie)
        categories=True,
        structured=True,
        units=_units,
        domain=lambda spec: (*spec.outputs, TIE),
        agreement_context=systems_context,
        form=(
            FormField("outputs", "outputs", "Outputs compared (A, B, ...)", [], row=1),
            SYSTEMS_FORM,
            FormField("checkbox", "tie", "tie allowed", True, row=2, structural=True),
            FormField(
                "words",
                "strength",
                "Strength levels (optional, comma-separated)",
                [],
                placeholder="e.g. slightly, clearly",
                row=2,
            ),
        ),
        starter=marked_outputs,
        answer_options=_options,
        control="pairwise",
        argilla_question=lambda spec: ranking_question(spec.outputs),
        argilla_response=_argilla_response,
        shows_outputs=lambda spec: tuple(spec.outputs),
        swappable=lambda spec: (
            ((spec.outputs[0], spec.outputs[1]),) if len(spec.outputs) == 2 else ()
        ),
        label_studio=("Pairwise",),
        from_label_studio=_from_label_studio,
        potato=("pairwise",),
        from_potato=_from_potato,
        potato_labels=_potato_labels,
        potato_answer=_from_potato_labels,
    )
)
