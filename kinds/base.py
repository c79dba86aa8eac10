"""Core types of a task kind: item fields, human fields and derived scores.

A task kind is one module that builds a :class:`TaskKind` and registers it with
``@register_kind``. Everything else (import validation, the annotation view, agreement,
evaluator matching) reads the declaration; nothing lists kinds by hand.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kinds.field_types import FieldType, Level, ValidationError
from kinds.question_registry import for_field

__all__ = ["FieldType", "Level", "ValidationError"]  # defined apart, for the question types


_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f"}
FACT_IMPLIED = "C"
FACT_NOT_IMPLIED = "M"
#: A fact not labelled yet: lets a half-labelled list be saved as a draft. The Annotate
#: page refuses to submit a list that still holds it.
FACT_UNSET = "?"


def as_number(value: Any) -> float:
    """A number from a number or its text (not NaN), or ValidationError."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value.strip():
        try:
            number = float(value.strip())
        except ValueError:
            pass
        else:
            if not math.isnan(number):  # float("nan") parses, but NaN is no label
                return number
    raise ValidationError(f"{value!r} is not a number")


def parse_binary(value: Any) -> int:
    """Read a binary value: 0/1, true/false, yes/no (any case)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
        return int(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return 1
    if text in _FALSE:
        return 0
    raise ValidationError(f"{value!r} is not a binary value (use 0/1, true/false, yes/no)")


@dataclass(frozen=True)
class ItemField:
    """A field an item carries; ``kind`` is ``text``, ``list`` (of strings) or ``object``.

    ``check`` (optional) is called with the parsed value and raises
    :class:`ValidationError` when its shape is wrong (for example an object's keys).
    """

    name: str
    kind: str = "text"
    required: bool = True
    description: str = ""
    check: Callable[[Any], None] | None = None
    #: How a declared kind shows it: text, markdown, chat, link or code ("" = as text).
    role: str = ""
    #: Kept with the item but never shown to annotators (gold, metadata).
    hidden: bool = False
    #: One of the outputs being judged (pairwise questions compare these).
    output: bool = False


@dataclass(frozen=True)
class HumanField:
    """A judgment annotators give, with its type, allowed values and level of measurement."""

    name: str
    #: a FieldType, or the ``field_type`` string of a question type a plugin registers
    type: FieldType | str
    description: str = ""
    values: tuple[Any, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    level_descriptions: Mapping[Any, str] = field(default_factory=dict)
    facts_field: str | None = None  # FACT_LABELS: the item field holding the facts
    #: Declared questions: help text, whether an answer is needed to submit, and the
    #: condition (question, allowed answers) under which the question is asked at all.
    help: str = ""
    required: bool = True
    show_if: tuple[str, tuple[Any, ...]] | None = None
    #: PAIRWISE: the compared output fields, whether a tie is allowed, the strength
    #: levels (optional) and the item fields naming each output's system.
    outputs: tuple[str, ...] = ()
    allow_tie: bool = True
    strengths: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()
    #: SPANS: the item text field whose character ranges are labelled.
    source_field: str | None = None

    @property
    def question_type(self) -> Any:
        """The registered :class:`~kinds.question_type.QuestionType` of this field."""
        return for_field(self.type)

    @property
    def level(self) -> Level:
        """The field's natural level of measurement."""
        return for_field(self.type).level

    @property
    def agreement_levels(self) -> tuple[Level, ...]:
        """Levels of Krippendorff's alpha that fit this field."""
        return for_field(self.type).agreement_levels

    @property
    def numeric(self) -> bool:
        """True when values are numbers (so means and correlations make sense)."""
        return for_field(self.type).numeric

    def validate(
        self, value: Any, item_fields: Mapping[str, Any] | None = None, *, draft: bool = False
    ) -> Any:
        """Return the canonical form of ``value`` or raise :class:`ValidationError`.

        ``draft`` allows a fact list with facts not labelled yet (``"?"``); a submitted
        label never holds one. The field's question type checks the value.
        """
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValidationError("value is empty")
        return for_field(self.type).validate(self, value, item_fields, draft)


@dataclass(frozen=True)
class DerivedScore:
    """A score computed from one annotator's labels (and the item's fields)."""

    name: str
    description: str
    minimum: float
    maximum: float
    level: Level = Level.INTERVAL


DeriveFn = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, float | None]]


def _no_derived(labels: Mapping[str, Any], item: Mapping[str, Any]) -> dict[str, float | None]:
    return {}


@dataclass(frozen=True)
class TaskKind:
    """A kind of annotation task: what an item holds and what people judge about it."""

    name: str
    title: str
    description: str
    item_fields: tuple[ItemField, ...]
    human_fields_fn: Callable[[Mapping[str, Any]], tuple[HumanField, ...]]
    derived_scores: tuple[DerivedScore, ...] = ()
    derive_fn: DeriveFn = _no_derived
    guideline: str = ""
    default_settings: Mapping[str, Any] = field(default_factory=dict)
    validate_settings_fn: Callable[[Mapping[str, Any]], None] | None = None
    #: A prompt fragment for the generic 1-5 judges (G-Eval, Prometheus): what a good
    #: item looks like, in words. A kind with one numeric score and a hint is judged by
    #: them with their generic prompts (see evaluators/llm/targets.py).
    judge_hint: str = ""
    #: Optional column-wise form of ``derive`` over all units at once (the agreement
    #: engine uses it for speed): ``fn(cols: kinds.columns.LabelColumns)`` returns each
    #: derived score as a float array, NaN where undefined, with exactly derive's floats.
    derive_columns_fn: Callable[[Any], Mapping[str, Any]] | None = None
    #: The two texts the pair baselines (BLEU, ROUGE, embeddings ...) compare and the score
    #: they write: (hypothesis field, reference field, scored field); None: not compared.
    text_pair: tuple[str, str, str] | None = None
    #: Pairs of item fields a custom judge may read in exchanged positions (``swap_texts``).
    swappable: tuple[tuple[str, str], ...] = ()

    def human_fields(self, settings: Mapping[str, Any] | None = None) -> tuple[HumanField, ...]:
        """The human fields for a project with these settings."""
        return self.human_fields_fn(self.settings(settings))

    def human_field(self, name: str, settings: Mapping[str, Any] | None = None) -> HumanField:
        """One human field by name; raises ValidationError for an unknown one."""
        for f in self.human_fields(settings):
            if f.name == name:
                return f
        known = [f.name for f in self.human_fields(settings)]
        raise ValidationError(f"unknown field {name!r} for kind {self.name} (known: {known})")

    def settings(self, settings: Mapping[str, Any] | None) -> dict[str, Any]:
        """Project settings merged over the kind's defaults (``k`` defaults to 3)."""
        merged: dict[str, Any] = {"k": 3, **self.default_settings}
        merged.update(settings or {})
        return merged

    def validate_settings(self, settings: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check settings for this kind and return them merged with defaults."""
        merged = self.settings(settings)
        k = merged.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValidationError(f"settings 'k' must be a whole number >= 1, got {k!r}")
        overlap = merged.get("min_pair_overlap", 1)
        if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 1:
            raise ValidationError(
                f"settings 'min_pair_overlap' must be a whole number >= 1, got {overlap!r}"
            )
        families = merged.get("model_families", {})
        if not isinstance(families, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and k and v for k, v in families.items()
        ):
            raise ValidationError(
                "settings 'model_families' must map model names to family names, "
                'e.g. {"gpt-4-1106-preview": "gpt-4"}'
            )
        if self.validate_settings_fn:
            self.validate_settings_fn(merged)
        return merged

    def validate_item(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Check an item's fields; return them with list fields parsed from JSON."""
        out = dict(fields)
        for spec in self.item_fields:
            value = out.get(spec.name)
            missing = value is None or (isinstance(value, str) and not value.strip())
            if isinstance(value, float) and math.isnan(value):
                missing = True
            if missing:
                if spec.required:
                    raise ValidationError(f"required field {spec.name!r} is empty", spec.name)
                out.pop(spec.name, None)
                continue
            try:
                if spec.kind == "list":
                    out[spec.name] = _as_string_list(spec.name, value)
                elif spec.kind == "object":
                    out[spec.name] = _as_object(spec.name, value)
                elif spec.kind == "chat":
                    out[spec.name] = _as_chat(spec.name, value)
                else:
                    out[spec.name] = str(value)
                if spec.check is not None:
                    spec.check(out[spec.name])
            except ValidationError as exc:
                raise ValidationError(str(exc), spec.name) from None
        return out

    def derive(
        self, labels: Mapping[str, Any], item_fields: Mapping[str, Any]
    ) -> dict[str, float | None]:
        """Derived scores of one annotator's labels on one item (None where undefined)."""
        return self.derive_fn(labels, item_fields)


def _as_string_list(name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValidationError(f"field {name!r} must be a JSON list of strings") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"field {name!r} must be a list of strings")
    return [v.strip() for v in value]


def _as_object(name: str, value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValidationError(f"field {name!r} must be a JSON object") from None
    if not isinstance(value, dict):
        raise ValidationError(f"field {name!r} must be an object")
    return value


def _as_chat(name: str, value: Any) -> list[dict[str, str]]:
    """A chat transcript: a list of ``{role, content}`` (JSON text or a list)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValidationError(f"field {name!r} must be a JSON list of turns") from None
    if not isinstance(value, list) or not all(
        isinstance(t, dict) and isinstance(t.get("role"), str) and isinstance(t.get("content"), str)
        for t in value
    ):
        raise ValidationError(f"field {name!r} must be a list of {{role, content}} turns")
    return [{"role": t["role"], "content": t["content"]} for t in value]


def share_implied(labels: Sequence[str] | None) -> float | None:
    """Share of 'C' labels in a list; None for a missing or empty list (undefined)."""
    if not labels:
        return None
    return sum(1 for v in labels if v == FACT_IMPLIED) / len(labels)


def f1(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean; None if either side is undefined, 0.0 if both are 0."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)
