"""What the generic judges (G-Eval, Prometheus) score for each task kind they support.

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
from typing import Any, Literal

ScaleMapping = Literal["stretch", "keep"]
MAPPING_TEXT = {
    "stretch": "1-5 stretched onto the field's range (1 -> minimum, 5 -> maximum)",
    "keep": "1-5 kept on the field's 0-5 points (1 -> 1/5 of the range, 5 -> maximum)",
}


def mapping_note(mapping: str) -> str:
    """The 1-5 mapping in words, for run notes (ego-centric bias counts use these scores)."""
    return (
        f"1-5 grades mapped onto the field by scale_mapping={mapping!r}: "
        f"{MAPPING_TEXT.get(mapping, mapping)}; correlations and bias counts use these scores"
    )


@dataclass(frozen=True)
class Target:
    """One kind's scored field, its range and the item fields the prompt shows."""

    kind: str
    field: str
    minimum: float
    maximum: float
    inputs: tuple[str, ...]

    def rescale(self, score_1_to_5: float, mapping: ScaleMapping = "stretch") -> float:
        """Map a 1-5 judge score onto the field's range (see the module docstring)."""
        span = self.maximum - self.minimum
        if mapping == "keep":
            return self.minimum + score_1_to_5 / 5 * span
        return self.minimum + (score_1_to_5 - 1) / 4 * span


TARGETS: dict[str, Target] = {
    "actionability": Target(
        "actionability", "actionability", 0.0, 5.0, ("claim", "evidence", "label", "explanation")
    ),
    "intent_resolution": Target("intent_resolution", "resolution", 0.0, 1.0, ("query", "response")),
}


def target_for(fields: Mapping[str, Any], kind: str | None = None) -> Target:
    """The target named ``kind``, else the one whose inputs the item carries."""
    if kind:
        return TARGETS[kind]
    for target in TARGETS.values():
        if all(name in fields for name in target.inputs if name != "label"):
            return target
    raise ValueError(f"no judge target fits an item with fields {sorted(fields)}")


def prompt_values(fields: Mapping[str, Any], target: Target) -> dict[str, str]:
    """The item's inputs for the prompt, as text ('' for a missing one)."""
    return {name: "" if fields.get(name) is None else str(fields[name]) for name in target.inputs}
