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
    )
)
