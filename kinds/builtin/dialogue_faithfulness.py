"""Dialogue faithfulness (Schema-Guided Semantic Accuracy): does an utterance realise an act?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kinds.base import FieldType, HumanField, ItemField, TaskKind, ValidationError
from kinds.registry import register_kind

GUIDELINE = """\
**Task.** A task-oriented dialogue system had to say one *dialogue act*: an act type
(INFORM, REQUEST, CONFIRM, OFFER, GOODBYE, ...), usually a slot (for example
`price_range`) and its values. Read the previous user turn for context, then the system
utterance.

Answer **1 (faithful)** when the utterance conveys this act with exactly these values:
the slot's meaning and every value must be expressed, in any wording (a boolean slot such
as `has_live_music = True` can be said as "they have live music"). Answer **0** when a
value is missing, wrong, or the utterance says something the act does not allow. Other
acts in the same utterance are fine; judge only the act shown.
"""


def _check_act(act: dict[str, Any]) -> None:
    """An act needs its type; ``slot`` is text and ``values`` a list of strings if given."""
    if not isinstance(act.get("act"), str) or not act["act"].strip():
        raise ValidationError('act needs an "act" type such as "INFORM"')
    if act.get("slot") is not None and not isinstance(act["slot"], str):
        raise ValidationError('act "slot" must be text')
    values = act.get("values")
    if values is not None and (
        not isinstance(values, list) or not all(isinstance(v, str) for v in values)
    ):
        raise ValidationError('act "values" must be a list of strings')


def _human_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    return (
        HumanField(
            "faithful",
            FieldType.BINARY,
            "Does the utterance faithfully realise the dialogue act?",
            values=(0, 1),
            level_descriptions={0: "not faithful", 1: "faithful"},
        ),
    )


DIALOGUE_FAITHFULNESS = register_kind(
    TaskKind(
        name="dialogue_faithfulness",
        title="Dialogue faithfulness (SGSAcc)",
        description="A system utterance and the dialogue act it should realise.",
        item_fields=(
            ItemField("service", description="SGD service name"),
            ItemField(
                "act",
                "object",
                description='{"act": ..., "slot": ..., "values": [...]}',
                check=_check_act,
            ),
            ItemField("utterance", description="the system utterance"),
            ItemField("previous_turn", required=False, description="the user turn before it"),
            ItemField("slot_description", required=False, description="schema description"),
            ItemField("is_categorical", required=False, description="slot is categorical"),
            ItemField(
                "reference_utterance",
                required=False,
                description="ground-truth utterance when `utterance` is generated text",
            ),
            ItemField("generator", required=False, hidden=True, description="system that wrote it"),
            ItemField(
                "utterance_id",
                required=False,
                description="groups the acts of one utterance (SGD: dialogue:turn); without "
                "it, dialogue_id + turn_index do; SGSAcc's headline figure is per utterance",
            ),
        ),
        human_fields_fn=_human_fields,
        guideline=GUIDELINE,
    )
)
