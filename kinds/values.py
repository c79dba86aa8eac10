"""Values of the structured question types: multi-label sets, free text, pairwise
choices and spans. :meth:`kinds.base.HumanField.validate` hands these types here.

Canonical forms (what the store keeps):
- multi-label: the chosen labels in declared order, each once (``[]`` = none applies);
- free text: the stripped text;
- pairwise: ``{"choice": <output field> | "tie", "shown": [output fields in the order
  the annotator saw them], "strength": <level> | None}``;
- spans: ``[{"start", "end", "label"}]`` sorted, characters ``start <= c < end`` of the
  question's source field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from kinds.field_types import FieldType, ValidationError


class Question(Protocol):
    """What these checks read of a question (a :class:`kinds.base.HumanField`)."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> FieldType: ...
    @property
    def values(self) -> tuple[Any, ...]: ...
    @property
    def show_if(self) -> tuple[str, tuple[Any, ...]] | None: ...
    @property
    def outputs(self) -> tuple[str, ...]: ...
    @property
    def allow_tie(self) -> bool: ...
    @property
    def strengths(self) -> tuple[str, ...]: ...
    @property
    def source_field(self) -> str | None: ...
    def validate(
        self, value: Any, item_fields: Mapping[str, Any] | None = None, *, draft: bool = False
    ) -> Any: ...


TIE = "tie"


def _decoded(value: Any, what: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise ValidationError(f"{what} must be JSON, got {value[:40]!r}") from None
    return value


def validate_structured(spec: Question, value: Any, item_fields: Mapping[str, Any] | None) -> Any:
    """The canonical value of a structured question or ValidationError."""
    if spec.type is FieldType.TEXT:
        text = str(value).strip()
        if not text:
            raise ValidationError("value is empty")
        return text
    if spec.type is FieldType.MULTI_LABEL:
        return _multi(spec, value)
    if spec.type is FieldType.PAIRWISE:
        return _pairwise(spec, value)
    return _spans(spec, value, item_fields)


def _multi(spec: Question, value: Any) -> list[str]:
    value = _decoded(value, "a multi-label answer")
    if not isinstance(value, list | tuple):
        raise ValidationError("a multi-label answer must be a list of labels")
    chosen = {str(v).strip() for v in value}
    unknown = sorted(chosen - set(spec.values))
    if unknown:
        raise ValidationError(f"{unknown[0]!r} is not one of {list(spec.values)}")
    return [v for v in spec.values if v in chosen]


def _pairwise(spec: Question, value: Any) -> dict[str, Any]:
    value = _decoded(value, "a pairwise answer")
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


def _spans(
    spec: Question, value: Any, item_fields: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    value = _decoded(value, "spans")
    if not isinstance(value, list | tuple):
        raise ValidationError("spans must be a list of {start, end, label}")
    size = None
    if item_fields is not None and spec.source_field in item_fields:
        size = len(str(item_fields[spec.source_field]))
    out = []
    for span in value:
        if not isinstance(span, Mapping):
            raise ValidationError("each span must be an object {start, end, label}")
        try:
            start, end = int(span["start"]), int(span["end"])
        except (KeyError, TypeError, ValueError):
            raise ValidationError("each span needs whole-number 'start' and 'end'") from None
        label = str(span.get("label", "")).strip()
        if label not in spec.values:
            raise ValidationError(f"span label {label!r} is not one of {list(spec.values)}")
        if not 0 <= start < end or (size is not None and end > size):
            raise ValidationError(
                f"span {start}-{end} is not a range inside {spec.source_field!r}"
                + (f" ({size} characters)" if size is not None else "")
            )
        out.append({"start": start, "end": end, "label": label})
    unique = {(s["start"], s["end"], s["label"]): s for s in out}
    return [unique[k] for k in sorted(unique)]


def answer_key(spec: Question, answer: Any) -> Any:
    """One answer a condition may name: a pairwise choice, one label of a multi-label
    question, or a value of any other question (canonical)."""
    if spec.type is FieldType.PAIRWISE:
        allowed = [*spec.outputs, TIE]
        if answer not in allowed:
            raise ValidationError(f"choice {answer!r} is not one of {allowed}")
        return answer
    if spec.type is FieldType.MULTI_LABEL:
        return _multi(spec, [answer])[0]
    if spec.type in (FieldType.SPANS, FieldType.TEXT):
        raise ValidationError(f"a condition cannot name a {spec.type.value} answer")
    return spec.validate(answer)


def is_asked(spec: Question, answers: Mapping[str, Any]) -> bool:
    """True when ``spec`` is asked given the ``answers`` so far (no condition: always)."""
    if spec.show_if is None:
        return True
    name, allowed = spec.show_if
    given = answers.get(name)
    if given is None:
        return False
    if isinstance(given, Mapping):  # pairwise
        return given.get("choice") in allowed
    if isinstance(given, list):  # multi-label: any chosen label counts
        return any(g in allowed for g in given)
    return any(given == a for a in allowed)
