"""A question type: everything the workbench knows about one kind of answer, declared once.

A :class:`QuestionType` is a frozen declaration, like a measure: the name a kind file
gives in ``type``, the keys it takes and how it reads them, how an answer is checked and
stored, its levels of measurement, how agreement sees it, how people read an answer, its
form on the Task kinds page, its browser control and its counterparts in Label Studio and
Potato. The built-in types are one module each in ``kinds/question_types/``; installed
packages add theirs through the entry point group ``metric_audit.question_types``
(:mod:`kinds.question_registry`). A type missing a part is refused when it registers,
with a message naming the part.

This module also holds the checks every type's parser shares (text without HTML, label
lists, flags) and :class:`DeclarationError`, the one-line error of a kind file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from kinds.field_types import Level, ValidationError
from kinds.markdown_check import html_in_markdown

#: Keys every question takes, whatever its type.
COMMON_KEYS = frozenset({"name", "type", "prompt", "help", "required", "show_if"})
#: The widgets a type's form entry may use on the Task kinds page.
FORM_WIDGETS = frozenset(
    {"labels", "likert", "number", "outputs", "checkbox", "words", "text_field", "note"}
)


class DeclarationError(ValueError):
    """A kind definition that cannot be used; one line: the key, then the reason."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key


@dataclass(frozen=True)
class FormField:
    """One entry of a type's part of the Task kinds form, as data (the page draws it).

    ``widget``: ``labels`` (a label per line), ``likert`` (``LEVEL: label`` lines),
    ``number``, ``outputs`` (item fields to pick, in order), ``checkbox``, ``words``
    (comma-separated), ``text_field`` (one text, Markdown or code field) or ``note``
    (a caption, ``label`` is its text). ``key`` is the TOML key it edits; ``default``
    is left out of the file; ``row`` groups entries side by side.
    """

    widget: str
    key: str = ""
    label: str = ""
    default: Any = None
    help: str = ""
    placeholder: str = ""
    row: int = 0
    #: a change redraws the form (another entry depends on it)
    structural: bool = False


#: The form entry naming the system behind each compared output (pairwise, ranking).
SYSTEMS_FORM = FormField(
    "outputs",
    "systems",
    "System of each output (optional)",
    [],
    help="Hidden fields naming the system behind each output, in the same order",
    row=1,
)


def _no_outputs(spec: Any) -> tuple[str, ...]:
    return ()


def _no_swaps(spec: Any) -> tuple[tuple[str, str], ...]:
    return ()


def _no_context(spec: Any, fields_by_item: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {}


def _as_is(spec: Any, value: Any) -> list[tuple[str, Hashable]]:
    return [("", value)]


def _nothing(fields: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {}


def _unchanged(question: dict[str, Any]) -> dict[str, Any]:
    return question


def _no_options(question: Mapping[str, Any]) -> list[Any]:
    return []


def _no_config(tag: Any, fields: Any, losses: list[str]) -> dict[str, Any] | None:
    return None


def as_text_result(spec: Any, value: Any) -> dict[str, Any]:
    """A Label Studio text-area result holding the answer (JSON unless it is text)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return {"type": "textarea", "value": {"text": [text]}}


def text_area_control(spec: Any, name: str) -> list[str]:
    """A Label Studio text area for the question (``name`` already quoted)."""
    return [f'  <TextArea name={name} toName="item"/>']


def text_box_labels(spec: Any, value: Any) -> dict[str, str]:
    """Potato's text box holding the answer (JSON unless it is text)."""
    return {"text_box": value if isinstance(value, str) else json.dumps(value)}


#: a Likert point as Potato names it (``3`` or ``scale_3``)
_SCALE = re.compile(r"(?:scale_)?(\d+)$")


def potato_chosen(labels: Any) -> list[str]:
    """The label names a Potato scheme's ``{name: value}`` marks as chosen."""
    if not isinstance(labels, Mapping) or not labels:
        raise ValueError("a scheme's annotation must be a non-empty object")
    return [str(k) for k, v in labels.items() if v not in (False, None, "", "false", 0)]


def one_potato_label(spec: Any, labels: Any) -> Any:
    """The answer of a Potato scheme with one chosen label: a text box's text, else the
    chosen label's name (a Likert point ``3`` or ``scale_3`` read as the number 3)."""
    chosen = potato_chosen(labels)
    if "text_box" in labels:
        return labels["text_box"]
    if len(chosen) != 1:
        raise ValueError(f"expected one chosen label, found {len(chosen)}")
    point = _SCALE.match(chosen[0])
    return int(point.group(1)) if point else chosen[0]


def text_question(spec: Any) -> tuple[str, dict[str, Any]]:
    """An Argilla text question."""
    return "text", {"use_markdown": False}


def label_question(
    labels: Sequence[Any], texts: Sequence[str] | None = None, kind: str = "label_selection"
) -> tuple[str, dict[str, Any]]:
    """An Argilla single-label question over ``labels`` (``texts``: the words shown for
    them, default the labels); ``kind`` ``multi_label_selection`` lets several be picked."""
    shown = texts or [str(v) for v in labels]
    options = [
        {"value": str(v), "text": str(t), "description": None}
        for v, t in zip(labels, shown, strict=True)
    ]
    return kind, {"options": options}


def text_response(spec: Any, value: Any, losses: list[str]) -> Any:
    """An Argilla text question's answer: the answer as text (JSON unless it is text)."""
    return value if isinstance(value, str) else json.dumps(value)


def number_result(spec: Any, value: Any) -> dict[str, Any]:
    """A Label Studio rating (a whole number) or number result."""
    if isinstance(value, int):
        return {"type": "rating", "value": {"rating": value}}
    return {"type": "number", "value": {"number": value}}


def choices_control(name: str, choices: Sequence[Any]) -> list[str]:
    """A Label Studio single choice among ``choices``."""
    from xml.sax.saxutils import quoteattr

    lines = [f'  <Choices name={name} toName="item" choice="single">']
    lines += [f"    <Choice value={quoteattr(str(c))}/>" for c in choices]
    return [*lines, "  </Choices>"]


@dataclass(frozen=True, kw_only=True)
class QuestionType:
    """One question type. Parts left ``None`` are missing; registering refuses them.

    Identity: ``name`` (``type = "..."`` in a kind file), ``field_type`` (the human
    field's ``type``: a :class:`~kinds.field_types.FieldType` value or the plugin's own
    string), ``title`` (the form's type picker) and ``answer_shape`` (what the store keeps,
    in words). ``declarable=False`` marks a type built-in kinds use but kind files cannot
    name (fact labels).
    """

    name: str
    field_type: str
    title: str | None = None
    answer_shape: str | None = None
    declarable: bool = True
    #: place in pickers and lists (built-ins 10, 20, ...; plugins after them)
    order: int = 1000

    # -- the kind file ---------------------------------------------------------------
    #: the keys it takes besides :data:`COMMON_KEYS`, in the order a file writes them
    keys: tuple[str, ...] = ()
    #: ``parse(question, where, item_fields_by_name)`` -> the HumanField's own arguments
    #: (values, range, outputs ...); raises :class:`DeclarationError`
    parse: Callable[[Mapping[str, Any], str, Mapping[str, Any]], dict[str, Any]] | None = None

    # -- answers ----------------------------------------------------------------------
    #: ``validate(spec, value, item_fields, draft)`` -> the canonical answer, or
    #: :class:`~kinds.field_types.ValidationError`
    validate: Callable[[Any, Any, Mapping[str, Any] | None, bool], Any] | None = None
    #: ``condition_key(spec, answer)`` -> an answer a ``show_if`` may name (canonical);
    #: None: a condition cannot name this type's answers
    condition_key: Callable[[Any, Any], Any] | None = None
    #: ``answer_text(spec, value, item_fields)``: the answer as the Audit grid and
    #: adjudication show it
    answer_text: Callable[[Any, Any, Mapping[str, Any]], str] | None = None

    # -- agreement --------------------------------------------------------------------
    level: Level | None = None
    #: levels of Krippendorff's alpha that fit (empty: no alpha)
    agreement_levels: tuple[Level, ...] = ()
    #: answers are numbers (means and correlations make sense)
    numeric: bool = False
    #: answers fall in a few categories (Fleiss, Cohen and AC1 apply)
    categories: bool = False
    #: the stored answer is a structure (list or object), seen by agreement through
    #: ``units``; its measures are declared for it, and no other is computed
    structured: bool = False
    #: the values ``units`` gives are numbers (ranks ...), though an answer is not one
    numeric_units: bool = False
    #: what one agreement unit is (an item; a fact of an item's list; an output of an item)
    unit: str = "item"
    #: ``units(spec, value)`` -> [(unit suffix, hashable value)]: the agreement units one
    #: answer gives ("" = the item itself)
    units: Callable[[Any, Any], list[tuple[str, Hashable]]] = _as_is
    #: ``domain(spec)``: the values in their order (None: as found)
    domain: Callable[[Any], tuple[Any, ...] | None] | None = None
    #: ``agreement_context(spec, fields_by_item)``: what this type's measures need beside
    #: the ratings (declared labels, systems per item, text lengths ...)
    agreement_context: Callable[[Any, Mapping[str, Mapping[str, Any]]], dict[str, Any]] = (
        _no_context
    )

    # -- the Task kinds form and the Annotate page --------------------------------------
    form: tuple[FormField, ...] = ()
    #: ``starter(fields)``: what a new question of this type starts with
    starter: Callable[[Sequence[Mapping[str, Any]]], dict[str, Any]] = _nothing
    #: ``fit(question)``: a question just switched to this type, made to fit it
    fit: Callable[[dict[str, Any]], dict[str, Any]] = _unchanged
    #: ``answer_options(question)``: the answers a condition on it may offer (plain data)
    answer_options: Callable[[Mapping[str, Any]], list[Any]] = _no_options
    #: the browser control the annotation client looks up by this name
    control: str | None = None
    #: ``shows_outputs(spec)``: output fields the control draws itself (side by side)
    shows_outputs: Callable[[Any], tuple[str, ...]] = _no_outputs
    #: ``swappable(spec)``: output pairs a custom judge may read exchanged
    swappable: Callable[[Any], tuple[tuple[str, str], ...]] = _no_swaps

    # -- other tools' configs -----------------------------------------------------------
    #: Label Studio control tags read as this type, and how: ``from_label_studio(tag,
    #: fields, losses)`` (the XML element, its object tags' name -> converted field, the
    #: loss report) -> the question's own keys, or None when the tag is another type's
    label_studio: tuple[str, ...] = ()
    from_label_studio: Callable[[Any, Any, list[str]], dict[str, Any] | None] = _no_config
    #: Potato ``annotation_type`` names read as this type, and how: ``from_potato(scheme,
    #: text_field, losses)`` -> the question's own keys, or None
    potato: tuple[str, ...] = ()
    from_potato: Callable[[Any, Any, list[str]], dict[str, Any] | None] = _no_config
    #: exports: ``label_studio_result(spec, value)`` -> a result's ``type`` and
    #: ``value``, ``label_studio_control(spec, quoted_name)`` -> the labeling config's
    #: lines, ``potato_labels(spec, value)`` -> Potato's ``{label: value}`` (``{}``: no
    #: label; Potato keeps nothing for it); unset: the answer as JSON text in a text
    #: area / text box
    label_studio_result: Callable[[Any, Any], dict[str, Any]] = as_text_result
    label_studio_control: Callable[[Any, str], list[str]] = text_area_control
    potato_labels: Callable[[Any, Any], dict[str, str]] = text_box_labels
    #: ``potato_answer(spec, stored)``: the answer from what Potato stores for one scheme
    #: of one instance (``{label name: value}``, or for ``potato_spans`` the list of its
    #: span objects); a ValueError names what does not fit
    potato_answer: Callable[[Any, Any], Any] = one_potato_label
    #: ``potato_spans(spec, value)`` -> Potato span objects (``name``, ``start``,
    #: ``end``); set for types Potato keeps as spans, not labels
    potato_spans: Callable[[Any, Any], list[dict[str, Any]]] | None = None
    #: ``argilla_question(spec)`` -> (Argilla question type, its settings); unset: text
    argilla_question: Callable[[Any], tuple[str, dict[str, Any]]] = text_question
    #: ``argilla_response(spec, value, losses)`` -> the answer as that question takes it,
    #: or None when Argilla cannot hold it (left out); what it drops goes in ``losses``
    #: (a short phrase per answer, counted in the export's notes); unset: JSON text
    argilla_response: Callable[[Any, Any, list[str]], Any] = text_response

    def missing_parts(self) -> list[str]:
        """The parts left out (a declarable type also needs a parser and a control)."""
        needed = ["name", "field_type", "title", "answer_shape", "validate", "answer_text"]
        needed += ["level"]
        if self.declarable:
            needed += ["parse", "control"]
        have = {f.name: getattr(self, f.name) for f in fields(self)}
        return [p for p in needed if have[p] in (None, "")]

    @property
    def all_keys(self) -> frozenset[str]:
        """Every key a question of this type may carry."""
        return COMMON_KEYS | frozenset(self.keys)


# -- checks the types' parsers share ----------------------------------------------------


def markdown(value: Any, key: str) -> str:
    """Text without HTML (Markdown is allowed), or DeclarationError."""
    if not isinstance(value, str):
        raise DeclarationError(key, "must be text")
    tag = html_in_markdown(value)
    if tag:
        raise DeclarationError(key, f"Markdown may not hold HTML (found {tag!r})")
    return value


def flag(table: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
    """A true / false entry (``default`` when absent)."""
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise DeclarationError(f"{where}.{key}", "must be true or false")
    return value


def labels(q: Mapping[str, Any], where: str, *, needed: int = 2) -> tuple[str, ...]:
    """A question's distinct, non-empty ``labels`` (at least ``needed``)."""
    given = q.get("labels")
    if not isinstance(given, list) or len(given) < needed:
        raise DeclarationError(f"{where}.labels", f"a list of at least {needed} labels is needed")
    out = []
    for j, label in enumerate(given):
        if not isinstance(label, str) or not label.strip():
            raise DeclarationError(f"{where}.labels[{j}]", "must be non-empty text")
        markdown(label, f"{where}.labels[{j}]")
        out.append(label.strip())
    if len(set(out)) != len(out):
        dup = next(v for v in out if out.count(v) > 1)
        raise DeclarationError(f"{where}.labels", f"labels must be distinct ({dup!r} repeats)")
    return tuple(out)


def no_labels(q: Mapping[str, Any], where: str, type_name: str) -> None:
    """A type without labels refuses them."""
    if "labels" in q:
        raise DeclarationError(f"{where}.labels", f"a {type_name} question has no labels")


def validated(spec: Any, answer: Any) -> Any:
    """An answer a condition names, checked as any answer of the question is."""
    return spec.validate(answer)


def decoded(value: Any, what: str) -> Any:
    """JSON text decoded (a structured answer may come as text), else the value."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise ValidationError(f"{what} must be JSON, got {value[:40]!r}") from None
    return value


def level_words(spec: Any, value: Any, *, with_value: bool = True) -> str:
    """A value with its level description (``3 · good``), the description alone when
    ``with_value`` is false, or the value."""
    label = (spec.level_descriptions or {}).get(value)
    if label and with_value:
        return f"{value} · {label}"
    return label or str(value)


def output_fields(q: Mapping[str, Any], where: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """``outputs`` (default: the fields marked ``output``), ``systems`` and ``tie`` of a
    question over several outputs (pairwise, ranking)."""
    outputs = q.get("outputs") or [f.name for f in fields.values() if f.output]
    if not isinstance(outputs, list) or len(outputs) < 2:
        raise DeclarationError(f"{where}.outputs", "two or more output fields are needed")
    for j, o in enumerate(outputs):
        if o not in fields:
            raise DeclarationError(f"{where}.outputs[{j}]", f"{o!r} is not a declared field")
    if len(set(outputs)) != len(outputs):
        raise DeclarationError(f"{where}.outputs", "outputs must be distinct")
    systems = q.get("systems", [])
    if systems and (not isinstance(systems, list) or len(systems) != len(outputs)):
        raise DeclarationError(f"{where}.systems", "one system field per output is needed")
    for j, s in enumerate(systems):
        if s not in fields:
            raise DeclarationError(f"{where}.systems[{j}]", f"{s!r} is not a declared field")
    return {
        "outputs": tuple(outputs),
        "allow_tie": flag(q, "tie", where, True),
        "systems": tuple(systems),
    }


def marked_outputs(fields: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A new multi-output question's start: the fields marked ``output`` (two or more)."""
    outputs = [f.get("name") for f in fields if f.get("output")]
    return {"outputs": outputs} if len(outputs) >= 2 else {}


def systems_context(spec: Any, fields_by_item: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The compared outputs and, when declared, each item's system behind each output."""
    context: dict[str, Any] = {"outputs": list(spec.outputs)}
    if spec.systems:
        context["systems"] = {
            i: {o: fv.get(s, o) for o, s in zip(spec.outputs, spec.systems, strict=True)}
            for i, fv in fields_by_item.items()
        }
    return context


def label_studio_targets(tag: Any, fields: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The field names a Label Studio control's ``toName`` points at."""
    targets = [t.strip() for t in (tag.get("toName") or "").split(",") if t.strip()]
    return [fields.get(t, {}).get("name", t) for t in targets]


def mark_outputs(names: Sequence[str], fields: Mapping[str, dict[str, Any]]) -> None:
    """Mark the converted fields called ``names`` as judged outputs."""
    for f in fields.values():
        if f["name"] in names:
            f["output"] = True


def choice_labels(tag: Any) -> list[str]:
    """The labels of a Label Studio ``<Choices>`` tag."""
    return [c.get("value") or c.get("alias") or "" for c in tag.iter("Choice")]


def scheme_labels(scheme: Mapping[str, Any], losses: list[str]) -> list[str]:
    """A Potato scheme's label names (what a label carries beyond its name is a loss)."""
    out = []
    for lab in scheme.get("labels") or []:
        if isinstance(lab, dict):
            out.append(str(lab.get("name", "")))
            extra = sorted(set(lab) - {"name"})
            if extra:
                losses.append(
                    f"scheme {scheme.get('name')!r}, label {lab.get('name')!r}: "
                    f"{', '.join(extra)} not carried over"
                )
        else:
            out.append(str(lab))
    return out
