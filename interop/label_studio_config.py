"""A declared kind from a Label Studio labeling config (the XML of a project's UI).

Carried over: object tags ``<Text>`` / ``<HyperText>`` (as text or Markdown fields;
``value="$name"`` names the field), ``<Paragraphs>`` and ``<Chat>`` (as a chat
transcript), and the controls each question type reads (its ``label_studio`` tags and
``from_label_studio``:
``<Choices>`` as single or, with ``choice="multiple"``, multi-label, ``<Rating>`` as
Likert, ``<Number>`` as a score, ``<TextArea>`` as free text, ``<Labels>`` as spans,
``<Pairwise>`` as pairwise), with ``required`` and a ``visibleWhen="choice-selected"``
condition, the control's own or that of a ``<View>`` holding it. Anything else (other
``visibleWhen`` kinds among them) is listed in the loss report, one plain sentence each.
"""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import EntitiesForbidden

from common.limits import MAX_NESTING
from kinds.declared import DeclarationError
from kinds.kind_file import TOO_DEEP
from kinds.question_registry import question_types

OBJECTS = {"Text": "text", "HyperText": "markdown", "Paragraphs": "chat", "Chat": "chat"}
LAYOUT = {"View", "Header", "Style", "Collapse", "Filter"}


def _field_of(tag: Element) -> str:
    value = tag.get("value", "")
    return value[1:] if value.startswith("$") else tag.get("name", "")


def _own_keys(tag: Element, fields: dict[str, dict], losses: list[str]) -> dict[str, Any] | None:
    """The type and its keys, from the first question type that reads this control tag."""
    for qt in question_types(declarable=True):
        if tag.tag in qt.label_studio:
            found = qt.from_label_studio(tag, fields, losses)
            if found is not None:
                return {"type": qt.name, **found}
    return None


def _question(tag: Element, fields: dict[str, dict], losses: list[str]) -> dict[str, Any] | None:
    name = tag.get("name") or ""
    kind = tag.tag
    q: dict[str, Any] = {"name": name}
    own = _own_keys(tag, fields, losses)
    if own is None:
        losses.append(f"<{kind} name={name!r}>: no workbench question type; left out")
        return None
    q |= own
    if tag.get("required") == "true":
        q["required"] = True
    else:
        q.setdefault("required", False)
    if tag.get("perRegion") == "true":
        losses.append(f"<{kind} name={name!r}>: asked per region in Label Studio; here per item")
    hint = tag.get("hint")
    if hint:
        q["help"] = hint
    return q


def _condition(
    tag: Element, view: Element | None, q: dict[str, Any], seen: set[str], losses: list[str]
) -> None:
    """The control's own ``visibleWhen``, else that of the ``<View>`` holding it."""
    source = tag if tag.get("visibleWhen") else view
    if source is None:
        return
    when = source.get("visibleWhen")
    other, value = source.get("whenTagName"), source.get("whenChoiceValue")
    if when == "choice-selected" and other in seen and value:
        q["show_if"] = {"question": other, "answer": value.split(",")}
    else:
        where = "" if source is tag else " (on the <View> holding it)"
        losses.append(
            f"<{tag.tag} name={q['name']!r}>: visibleWhen={when!r}{where} cannot be carried "
            "over; the question is always asked"
        )


def _views(root: Element) -> dict[Element, Element]:
    """Each tag -> the nearest enclosing ``<View>`` with a ``visibleWhen`` (if any)."""
    found: dict[Element, Element] = {}
    stack: list[tuple[Element, Element | None]] = [(root, None)]
    while stack:
        tag, view = stack.pop()
        if tag.tag == "View" and tag.get("visibleWhen"):
            view = tag
        if view is not None and tag is not view:
            found[tag] = view
        stack.extend((child, view) for child in tag)
    return found


def _check_depth(root: Element) -> None:
    """Refuse tags nested deeper than MAX_NESTING (walked with a stack)."""
    stack = [(root, 1)]
    while stack:
        tag, depth = stack.pop()
        if depth > MAX_NESTING:
            raise DeclarationError("file", TOO_DEEP)
        stack.extend((child, depth + 1) for child in tag)


def convert(xml: str) -> tuple[dict[str, Any], list[str]]:
    """(kind definition, what could not be carried over) of a labeling config."""
    try:
        root = ElementTree.fromstring(xml)
    except EntitiesForbidden as exc:
        raise DeclarationError(
            "file", f"XML entity declarations are not accepted in kind files ({exc.name!r})"
        ) from None
    _check_depth(root)
    losses: list[str] = []
    fields: dict[str, dict[str, Any]] = {}
    for tag in root.iter():
        if tag.tag in OBJECTS:
            fields[tag.get("name", "")] = {"name": _field_of(tag), "role": OBJECTS[tag.tag]}
            if tag.tag == "HyperText":
                losses.append(f"<HyperText name={tag.get('name')!r}>: shown as Markdown, no HTML")
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    views = _views(root)
    for tag in root.iter():
        if tag.tag in OBJECTS or tag.tag in LAYOUT or tag.tag in ("Choice", "Label"):
            continue
        if tag.tag in ("Image", "Audio", "Video", "TimeSeries", "Table"):
            losses.append(f"<{tag.tag} name={tag.get('name')!r}>: media is not shown; left out")
            continue
        q = _question(tag, fields, losses)
        if q is None:
            continue
        _condition(tag, views.get(tag), q, seen, losses)
        seen.add(q["name"])
        questions.append(q)
    headers = [h.get("value", "") for h in root.iter("Header") if h.get("value")]
    data: dict[str, Any] = {"title": headers[0] if headers else "Label Studio project"}
    data["fields"] = list({f["name"]: f for f in fields.values()}.values())
    data["questions"] = questions
    return data, losses
