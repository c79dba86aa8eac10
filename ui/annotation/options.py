"""What the annotation client draws for each question: its control and its options.

A question's control in the client (``ui/annotation/client``) is its question type's
``control`` in the registry (binary, single, multi_label, likert, score, text, pairwise,
spans, ranking). An option is a
value with the label shown on it and the keys that pick it, as labelled: C / M (and 1 /
0) for facts, Y / N (and 1 / 0) for yes / no, A / B / T for pairs, digits for scales and
label sets. A pairwise question's options follow the annotator's shown order, and each
keeps that order with the choice it saves. A pairwise question with strengths is a scale
read left to right, keyed by digits: with two outputs and strengths "slightly, clearly",
1 = A is better (clearly), 2 = A is better (slightly), 3 = Tie (also T), 4 = B is better
(slightly), 5 = B is better (clearly); A and B also pick their side at the mildest
strength. A ranking's options are its outputs, keyed by
their letters (A, B, C ...): each press puts that output in the next place (a second
press takes it out again), and "=" (when ties are allowed) puts the last one placed
level with the place above.

Free text, scores and spans are answered with a value, not an option's index: the text,
the number, or the spans (character ranges of whole words of the question's text field,
each with one of the question's labels, whose options are those labels).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotating.item_view import ItemView, Target
from kinds import FieldType, HumanField
from kinds.base import FACT_IMPLIED, FACT_NOT_IMPLIED
from kinds.question_types.ranking import NAME as RANKING
from kinds.values import TIE
from ui.keyboard import option_keys

#: Question-type controls the client draws with another one's keys and buttons (a fact of
#: a fact list is a yes / no question: C / M or 1 / 0).
SAME_AS = {"fact_labels": "binary"}
#: The controls the client draws today; items with any other question stay on the page.
CLIENT_CONTROLS = frozenset(
    {"binary", "single", "likert", "multi_label", "pairwise", "score", "text", "spans", RANKING}
)
#: Controls answered with a value (text, number, spans) rather than an option's index.
VALUE_CONTROLS = frozenset({"score", "text", "spans"})
_WORD = re.compile(r"\S+")
#: Keys of a pair's outputs in shown order: A, B, then further outputs (c, r: Streamlit's).
PAIR_KEYS = ("a", "b", "d", "e", "f", "g")
#: A ranking's "level with the place above" option: its value and key.
LEVEL = "="


@dataclass(frozen=True)
class Option:
    """One answer the client offers: the value saved, its label and the keys that pick it."""

    value: Any
    label: str
    keys: tuple[str, ...]


def control(spec: HumanField) -> str:
    """The client's control for a question: its question type's (the registry's)."""
    name = spec.question_type.control or ""
    return SAME_AS.get(name, name)


def drawn_by_client(spec: HumanField) -> bool:
    """True when the client can draw and save this question (a conditional one is drawn
    hidden; the server's answer to each save says which questions are asked)."""
    return control(spec) in CLIENT_CONTROLS


def by_value(spec: HumanField) -> bool:
    """True when the client answers this question with a value, not an option's index."""
    return control(spec) in VALUE_CONTROLS


def words(text: str) -> list[tuple[int, int, str]]:
    """(start, end, word) of every whitespace-separated word."""
    return [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text)]


def source_text(view: ItemView, spec: HumanField) -> str:
    """The text a spans question marks (its source field, as stored)."""
    return str(view.item.fields.get(spec.source_field or "", ""))


def shown_order(view: ItemView, outputs: tuple[str, ...]) -> list[str]:
    """The outputs in this annotator's order for this item: shuffled, and the same on
    every visit (seeded by project, item and annotator)."""
    seed = f"{view.project.name}|{view.item.item_id}|{view.user.name}".encode()
    order = list(outputs)
    random.Random(hashlib.sha256(seed).hexdigest()).shuffle(order)
    return order


def response_title(position: int) -> str:
    """The title of the output shown at ``position`` (0: "Response A"): never its field
    or system name, which would undo the blind shuffle."""
    return f"Response {chr(65 + position)}"


def options(view: ItemView, target: Target) -> list[Option]:
    """The options of a target, in the order the client draws them."""
    spec = target.field
    if spec.type is FieldType.FACT_LABELS:
        return [Option(FACT_IMPLIED, "C", ("c", "1")), Option(FACT_NOT_IMPLIED, "M", ("m", "0"))]
    if spec.type is FieldType.PAIRWISE and spec.strengths:
        return _strength_scale(spec, shown_order(view, spec.outputs))
    if control(spec) == RANKING:
        order = shown_order(view, spec.outputs)
        out = [Option(name, response_title(p), _letter(p)) for p, name in enumerate(order)]
        return (
            [*out, Option(LEVEL, "Level with the place above", (LEVEL,))] if spec.allow_tie else out
        )
    if spec.type is FieldType.PAIRWISE:
        order = shown_order(view, spec.outputs)
        out = [
            Option({"choice": name, "shown": order}, f"{chr(65 + p)} is better", (PAIR_KEYS[p],))
            for p, name in enumerate(order)
        ]
        if spec.allow_tie:
            out.append(Option({"choice": TIE, "shown": order}, "Tie", ("t",)))
        return out
    if control(spec) in ("score", "text"):
        return []
    if spec.type is FieldType.SPANS:
        return [
            Option(v, str(v), (str(i + 1),) if i < 9 else ()) for i, v in enumerate(spec.values)
        ]
    labels = spec.level_descriptions or {}
    if spec.type is FieldType.BINARY:
        return [
            Option(1, labels.get(1) or "yes", ("y", "1")),
            Option(0, labels.get(0) or "no", ("n", "0")),
        ]
    out = []
    for value, key in option_keys(spec):
        desc = labels.get(value)
        out.append(
            Option(value, f"{value} · {desc}" if desc else str(value), (key,) if key else ())
        )
    return out


def _letter(position: int) -> tuple[str, ...]:
    """The key of the output shown at ``position`` of a ranking: its letter (a-i)."""
    return (chr(97 + position),) if position < 9 else ()


def _strength_scale(spec: HumanField, order: list[str]) -> list[Option]:
    """A pairwise question with strengths as one scale, keyed 1, 2, 3 ... left to right
    (the tie also T): two outputs read A strongest .. A weakest, Tie, B weakest .. B
    strongest; more outputs each strongest first, then Tie."""
    strongest_first = list(reversed(spec.strengths))
    sides = []
    for p, name in enumerate(order):
        levels = strongest_first if p == 0 or len(order) > 2 else spec.strengths
        sides.append(
            [
                ({"choice": name, "shown": order, "strength": s}, f"{chr(65 + p)} is better ({s})")
                for s in levels
            ]
        )
    tie = [({"choice": TIE, "shown": order, "strength": None}, "Tie")] if spec.allow_tie else []
    if len(order) == 2:
        scale = [*sides[0], *tie, *sides[1]]
    else:
        scale = [*(o for side in sides for o in side), *tie]
    side_key = {name: PAIR_KEYS[p] for p, name in enumerate(order) if p < len(PAIR_KEYS)}
    out = []
    for i, (value, label) in enumerate(scale):
        keys = (str(i + 1),) if i < 9 else ()
        if value["choice"] == TIE:
            keys = (*keys, "t")
        elif value["strength"] == spec.strengths[0] and value["choice"] in side_key:
            keys = (*keys, side_key[value["choice"]])  # A / B: that side, the mildest strength
        out.append(Option(value, label, keys))
    return out


def chosen_index(view: ItemView, target: Target, opts: list[Option]) -> int | list[int] | None:
    """The saved answer as option indices (a list for a label set), None when unanswered;
    a value question's saved value itself."""
    saved = view.value(target)
    if saved is None or by_value(target.field):
        return saved
    if target.field.type is FieldType.MULTI_LABEL:
        values = saved if isinstance(saved, list) else []
        return [i for i, o in enumerate(opts) if o.value in values]
    if control(target.field) == RANKING:
        return _ranking_indices(saved, opts)
    if target.field.type is FieldType.PAIRWISE:
        if not isinstance(saved, Mapping):
            return None
        picked = (saved.get("choice"), saved.get("strength"))
        return next(
            (
                i
                for i, o in enumerate(opts)
                if o.value["choice"] == picked[0]
                and (not target.field.strengths or o.value["strength"] == picked[1])
            ),
            None,
        )
    for i, o in enumerate(opts):
        if o.value == saved or str(o.value) == str(saved):
            return i
    return None


def _ranking_indices(saved: Any, opts: list[Option]) -> list[list[int]] | None:
    """A saved ranking (groups of outputs, best first) as groups of option indices."""
    at = {o.value: i for i, o in enumerate(opts) if o.value != LEVEL}
    if not isinstance(saved, list):
        return None
    groups = [g if isinstance(g, list) else [g] for g in saved]
    if not all(str(o) in at for g in groups for o in g):
        return None
    return [sorted(at[str(o)] for o in g) for g in groups]


def value_of(target: Target, opts: list[Option], chosen: Any) -> Any:
    """The value to save for the client's answer (an index, or indices for a label set;
    a value question's value, checked by its question type when saved); ValueError when
    it names no option or is no value of the question's shape."""
    name = control(target.field)
    if name == "text":
        if not isinstance(chosen, str) or not chosen.strip():
            raise ValueError(f"no text for {target.key!r}")
        return chosen
    if name == "score":
        if not isinstance(chosen, int | float) or isinstance(chosen, bool):
            raise ValueError(f"no number {chosen!r} for {target.key!r}")
        return chosen
    if name == "spans":
        if not isinstance(chosen, list) or not all(isinstance(s, Mapping) for s in chosen):
            raise ValueError(f"no spans {chosen!r} for {target.key!r}")
        return [dict(s) for s in chosen]
    if name == RANKING:
        places = [o for o in opts if o.value != LEVEL]
        ok = isinstance(chosen, list) and all(
            isinstance(g, list) and g and all(_index_ok(i, places) for i in g) for g in chosen
        )
        if not ok:
            raise ValueError(f"no ranking {chosen!r} for {target.key!r}")
        return [[places[i].value for i in g] for g in chosen]
    if target.field.type is FieldType.MULTI_LABEL:
        if not isinstance(chosen, list) or not all(_index_ok(i, opts) for i in chosen):
            raise ValueError(f"no choices {chosen!r} for {target.key!r}")
        picked = set(chosen)
        return [o.value for i, o in enumerate(opts) if i in picked]
    if not _index_ok(chosen, opts):
        raise ValueError(f"no choice {chosen!r} for {target.key!r}")
    return opts[chosen].value


def _index_ok(index: Any, opts: list[Option]) -> bool:
    return isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(opts)
