"""Ranking: the compared outputs ordered best first, ties optional.

A kind file names the outputs (default: the fields marked ``output``), optionally the
fields naming each output's system, and ``tie = true`` to let an annotator put outputs
level. The stored answer is the groups best first, each group's outputs in declared order:
``[["answer_b"], ["answer_a", "answer_c"]]`` (b first, a and c level second). A plain
list of outputs is a ranking without ties. Agreement sees one unit per item and output,
its value the output's mid-rank (a tie shares the mean of the places it takes), so
Krippendorff's alpha is read on rank distances (ordinal and interval); Kendall's W and a
Bradley-Terry view of the implied pairs are declared in the ranking measure module.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from kinds.field_types import Level, ValidationError
from kinds.question_registry import register_question_type
from kinds.question_type import (
    SYSTEMS_FORM,
    FormField,
    QuestionType,
    decoded,
    flag,
    label_question,
    marked_outputs,
    no_labels,
    output_fields,
    systems_context,
    text_box_labels,
)

#: The type's name in kind files, its field type and its control (a plugin copy of this
#: module changes this line only).
NAME = "ranking"


def _parse(q: Mapping[str, Any], where: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    no_labels(q, where, NAME)
    out = output_fields(q, where, fields)
    out["allow_tie"] = flag(q, "tie", where, False)
    return out


def groups(spec: Any, value: Any) -> list[list[str]]:
    """The canonical ranking: groups best first, each in declared output order."""
    value = decoded(value, "a ranking")
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError("a ranking must be a list of outputs, best first")
    raw = [list(g) if isinstance(g, list | tuple) else [g] for g in value]
    named = [str(o).strip() for g in raw for o in g]
    if sorted(named) != sorted(spec.outputs):
        raise ValidationError(f"a ranking must place each of {list(spec.outputs)} once")
    if not spec.allow_tie and any(len(g) > 1 for g in raw):
        raise ValidationError("this question allows no ties")
    if any(not g for g in raw):
        raise ValidationError("a ranking has no empty places")
    order = {o: i for i, o in enumerate(spec.outputs)}
    return [sorted((str(o).strip() for o in g), key=order.__getitem__) for g in raw]


def mid_ranks(ranking: list[list[str]]) -> dict[str, float]:
    """Output -> its place, a tie sharing the mean of the places it takes (1 = best)."""
    out: dict[str, float] = {}
    taken = 0
    for group in ranking:
        place = taken + (len(group) + 1) / 2
        out.update({o: place for o in group})
        taken += len(group)
    return out


def ranking_question(outputs: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """An Argilla ranking question over the compared outputs (its type's name is Argilla's,
    the same word as this type's)."""
    return label_question(outputs, kind="ranking")


def ranked(ranking: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Groups of outputs, best first, as an Argilla ranking answer: every output with its
    rank (1 = best), outputs placed level sharing one."""
    return [{"value": o, "rank": i} for i, group in enumerate(ranking, start=1) for o in group]


def _units(spec: Any, value: Any) -> list[tuple[str, Hashable]]:
    if not isinstance(value, list):
        return []
    return [(f"#{o}", rank) for o, rank in mid_ranks(groups(spec, value)).items()]


def _answer_text(spec: Any, value: Any, item_fields: Any) -> str:
    if not isinstance(value, list):
        return str(value)
    return " > ".join(" = ".join(map(str, g)) if isinstance(g, list) else str(g) for g in value)


def _potato_labels(spec: Any, value: Any) -> dict[str, str]:
    """Potato's ranking keeps the order as comma-joined names (``rank_order``); a ranking
    with ties goes in a text box as JSON."""
    ranked = groups(spec, value)
    if any(len(g) > 1 for g in ranked) or any("," in o for o in spec.outputs):
        return text_box_labels(spec, ranked)
    return {"rank_order": ",".join(g[0] for g in ranked)}


def _from_potato_labels(spec: Any, labels: Any) -> Any:
    """A ranking from Potato's ``rank_order`` or from a text box holding JSON."""
    if isinstance(labels, dict) and "rank_order" in labels:
        return [o.strip() for o in str(labels["rank_order"]).split(",") if o.strip()]
    if isinstance(labels, dict) and "text_box" in labels:
        return labels["text_box"]
    raise ValueError("a Potato ranking needs a rank_order")


RANKING = register_question_type(
    QuestionType(
        name=NAME,
        field_type=NAME,
        order=85,
        title=f"{NAME} (best first)",
        answer_shape="the outputs' groups best first, e.g. [['b'], ['a', 'c']] (a, c level)",
        keys=("outputs", "systems", "tie"),
        parse=_parse,
        validate=lambda spec, value, item_fields, draft: groups(spec, value),
        answer_text=_answer_text,
        level=Level.ORDINAL,
        agreement_levels=(Level.ORDINAL, Level.INTERVAL),  # alpha on rank distances
        numeric_units=True,  # an answer is no number; each output's rank is
        structured=True,
        unit="output",
        units=_units,
        agreement_context=systems_context,
        form=(
            FormField("outputs", "outputs", "Outputs ranked", [], row=1),
            SYSTEMS_FORM,
            FormField("checkbox", "tie", "ties allowed", False),
        ),
        starter=marked_outputs,
        control=NAME,
        argilla_question=lambda spec: ranking_question(spec.outputs),
        argilla_response=lambda spec, value, losses: ranked(groups(spec, value)),
        shows_outputs=lambda spec: tuple(spec.outputs),
        potato_labels=_potato_labels,
        potato_answer=_from_potato_labels,
    )
)
