"""The one registry of question types: built-ins in ``kinds/question_types/``, plugins
through the entry point group ``metric_audit.question_types``.

Everything that treats answers by their type asks here: the kind file checker, the Task
kinds form, validation, agreement, the Audit grid, adjudication, the Label Studio and
Potato converters and the Annotate page's controls. :func:`for_field` finds a human
field's type by its ``type``; :func:`get` by the name kind files use.
"""

from __future__ import annotations

import threading

from common.registry import Registry, UnknownEntryError
from kinds.question_type import FORM_WIDGETS, QuestionType

#: Entry point group through which installed packages add question types.
ENTRY_POINT_GROUP = "metric_audit.question_types"
_BY_FIELD: dict[str, QuestionType] = {}
_LOCK = threading.Lock()


def _adopt(obj: object) -> None:
    """An entry point naming a QuestionType object directly (not its module)."""
    if not isinstance(obj, QuestionType):
        raise TypeError(f"{obj!r} is not a QuestionType")
    register_question_type(obj)


QUESTION_TYPES: Registry[QuestionType] = Registry(
    "question type",
    package="kinds.question_types",
    entry_point_group=ENTRY_POINT_GROUP,
    adopt=_adopt,
)


def register_question_type(qt: QuestionType) -> QuestionType:
    """Add a question type; a missing part or a name or field type taken is a ValueError
    naming it. Returns the type."""
    if not isinstance(qt, QuestionType):
        raise TypeError(f"{qt!r} is not a QuestionType")
    missing = qt.missing_parts()
    if missing:
        raise ValueError(f"question type {qt.name!r} lacks its {', '.join(missing)}")
    odd = [f.widget for f in qt.form if f.widget not in FORM_WIDGETS]
    if odd:
        raise ValueError(
            f"question type {qt.name!r}: form widget {odd[0]!r} is not one of "
            f"{', '.join(sorted(FORM_WIDGETS))}"
        )
    with _LOCK:
        taken = _BY_FIELD.get(str(qt.field_type))
        if taken is not None and taken is not qt:
            raise ValueError(
                f"question type {qt.name!r}: field type {qt.field_type!r} is "
                f"{taken.name!r}'s already"
            )
        QUESTION_TYPES.add(qt.name, qt)
        _BY_FIELD[str(qt.field_type)] = qt
    return qt


def unregister_question_type(name: str) -> None:
    """Forget a question type (a test's toy type)."""
    with _LOCK:
        qt = QUESTION_TYPES._entries.get(name)
        QUESTION_TYPES.remove(name)
        if qt is not None:
            _BY_FIELD.pop(str(qt.field_type), None)


def question_types(*, declarable: bool | None = None) -> list[QuestionType]:
    """Every registered type by its ``order`` (only those kind files may name, or only
    the others, when ``declarable`` is given)."""
    found = [
        qt for qt in QUESTION_TYPES.values() if declarable is None or qt.declarable is declarable
    ]
    return sorted(found, key=lambda qt: qt.order)


def declarable_names() -> list[str]:
    """The type names a kind file may give, in picker order."""
    return [qt.name for qt in question_types(declarable=True)]


def get(name: str) -> QuestionType:
    """The type a kind file names ``name``; the error lists the known ones."""
    return QUESTION_TYPES.get(name)


def find(name: object) -> QuestionType | None:
    """The declarable type called ``name``, or None."""
    if not isinstance(name, str) or name not in QUESTION_TYPES:
        return None
    qt = QUESTION_TYPES.get(name)
    return qt if qt.declarable else None


def for_field(field_type: object) -> QuestionType:
    """The type of a human field with this ``type``; UnknownEntryError when none is
    registered."""
    key = str(field_type)
    qt = _BY_FIELD.get(key)
    if qt is None:
        QUESTION_TYPES.discover()
        qt = _BY_FIELD.get(key)
    if qt is None:
        known = ", ".join(sorted(_BY_FIELD)) or "none"
        raise UnknownEntryError(f"unknown field type {key!r}; known: {known}")
    return qt


def maybe_for_field(field_type: object) -> QuestionType | None:
    """The type of this ``type``, or None (a derived score is no question)."""
    try:
        return for_field(field_type)
    except UnknownEntryError:
        return None
