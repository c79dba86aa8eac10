"""What conditions on declared questions read: the answers a ``show_if`` may name and
whether a question is asked given the answers so far.

How each type's answer is checked and stored is its question type's business
(``kinds/question_types/``); this module asks the registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kinds.field_types import ValidationError
from kinds.question_registry import for_field

#: The pairwise answer that names no winner.
TIE = "tie"


def answer_key(spec: Any, answer: Any) -> Any:
    """One answer a condition may name, canonical (a pairwise choice, one label of a
    multi-label question, a value of a scalar question); ValidationError when the
    question's type cannot be named by a condition or the answer is not one of it."""
    qt = for_field(spec.type)
    if qt.condition_key is None:
        raise ValidationError(f"a condition cannot name a {spec.type} answer")
    return qt.condition_key(spec, answer)


def is_asked(spec: Any, answers: Mapping[str, Any]) -> bool:
    """True when ``spec`` is asked given the ``answers`` so far (no condition: always)."""
    if spec.show_if is None:
        return True
    name, allowed = spec.show_if
    given = answers.get(name)
    if given is None:
        return False
    if isinstance(given, Mapping):  # a choice among outputs
        return given.get("choice") in allowed
    if isinstance(given, list):  # a set of labels: any chosen label counts
        return any(g in allowed for g in given)
    return any(given == a for a in allowed)
