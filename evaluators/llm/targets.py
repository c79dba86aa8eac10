"""What the generic judges (G-Eval, Prometheus) score, read from the kind's declarations.

A kind's **target** is its one numeric score: its only derived score (actionability),
else its only ordinal or interval human field (intent resolution's ``resolution``). Its
range comes from that declaration, and the prompt shows the kind's text item fields in
declared order (``generator`` never: the judge must not know which system wrote it).
The judges apply to a kind with a target that has a template of its own, named
``<judge>_<kind>.vN.md`` in ``evaluators/prompts/`` (the newest N; built-in kinds), or that
declares a ``judge_hint`` (a prompt fragment): such a kind is judged with the generic
template ``<judge>_generic.v1.md`` filled from its declarations.

Both judges answer on a 1-5 scale. How that scale meets the kind's field is the setting
``scale_mapping`` (recorded in the signature and in every result's details):

- ``stretch`` (default): linear from end to end, actionability 0-5 (1 -> 0, 5 -> 5) and
  resolution 0-1 (1 -> 0.0, 5 -> 1.0);
- ``keep``: the grade keeps its value on the field's 0-5 points, as a paper comparing a
  1-5 judge with 0-5 human scores does (actionability 1 -> 1, 5 -> 5; resolution
  grade / 5, so 1 -> 0.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal

from evaluators.llm.prompts import latest_prompt
from kinds import FieldType, TaskKind

ScaleMapping = Literal["stretch", "keep"]
MAPPING_TEXT = {
    "stretch": "1-5 stretched onto the field's range (1 -> minimum, 5 -> maximum)",
    "keep": "1-5 kept on the field's 0-5 points (1 -> 1/5 of the range, 5 -> maximum)",
}
#: Item fields a judge never sees.
HIDDEN_INPUTS = frozenset({"generator"})
GENERIC = "generic"


def mapping_note(mapping: str) -> str:
    """The 1-5 mapping in words, for run notes (ego-centric bias counts use these scores)."""
    return (
        f"1-5 grades mapped onto the field by scale_mapping={mapping!r}: "
        f"{MAPPING_TEXT.get(mapping, mapping)}; correlations and bias counts use these scores"
    )


@dataclass(frozen=True)
class Target:
    """One kind's scored field, its range, the item fields the prompt shows and the words
    the generic prompt uses (the field's description, level descriptions, the hint)."""

    kind: str
    field: str
    minimum: float
    maximum: float
    inputs: tuple[str, ...]
    description: str = ""
    levels: Mapping[Any, str] = dataclass_field(default_factory=dict)
    hint: str = ""
    title: str = ""

    def rescale(self, score_1_to_5: float, mapping: ScaleMapping = "stretch") -> float:
        """Map a 1-5 judge score onto the field's range (see the module docstring)."""
        span = self.maximum - self.minimum
        if mapping == "keep":
            return self.minimum + score_1_to_5 / 5 * span
        return self.minimum + (score_1_to_5 - 1) / 4 * span


def target_of(kind: TaskKind) -> Target | None:
    """The kind's one numeric score as a judge target, or None when it has none."""
    inputs = tuple(
        f.name for f in kind.item_fields if f.kind == "text" and f.name not in HIDDEN_INPUTS
    )
    if len(kind.derived_scores) == 1:
        ds = kind.derived_scores[0]
        return Target(
            kind.name,
            ds.name,
            float(ds.minimum),
            float(ds.maximum),
            inputs,
            description=ds.description,
            hint=kind.judge_hint,
            title=kind.title,
        )
    if kind.derived_scores:
        return None
    numeric = [f for f in kind.human_fields() if f.type in (FieldType.ORDINAL, FieldType.INTERVAL)]
    if len(numeric) != 1:
        return None
    spec = numeric[0]
    if spec.type is FieldType.ORDINAL and spec.values:
        lo, hi = min(float(v) for v in spec.values), max(float(v) for v in spec.values)
    elif spec.minimum is not None and spec.maximum is not None:
        lo, hi = float(spec.minimum), float(spec.maximum)
    else:
        return None
    if hi <= lo:
        return None
    return Target(
        kind.name,
        spec.name,
        lo,
        hi,
        inputs,
        description=spec.description,
        levels=dict(spec.level_descriptions),
        hint=kind.judge_hint,
        title=kind.title,
    )


def template_for(judge: str, kind: TaskKind) -> str | None:
    """The template id a judge renders for ``kind``: the newest version of the kind's own
    file when there is one, the generic one when the kind declares a judge hint, else
    None."""
    own = latest_prompt(f"{judge}_{kind.name}")
    if own is not None:
        return own
    return f"{judge}_{GENERIC}.v1" if kind.judge_hint.strip() else None


def prompt_values(fields: Mapping[str, Any], target: Target) -> dict[str, str]:
    """The item's inputs for the prompt, as text ('' for a missing one)."""
    return {name: "" if fields.get(name) is None else str(fields[name]) for name in target.inputs}


def heading(name: str) -> str:
    """An item field's name as a prompt heading (``previous_turn`` -> ``Previous turn``)."""
    return name.replace("_", " ").capitalize()


def level_lines(target: Target) -> str:
    """The field's level descriptions, one ``- value: words`` line each ('' for none)."""
    return "\n".join(f"- {value}: {words}" for value, words in target.levels.items())
