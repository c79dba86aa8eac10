"""Reading a dialogue-faithfulness item's act and its SGD extras (shared by SGSAcc and SER)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluators.sgd_references import candidate_references, is_boolean


def parse_flag(value: Any) -> bool | None:
    """``is_categorical`` as stored (bool, "True", "false", "1" ...); None when unknown."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [] if value in (None, "") else [str(value)]


@dataclass(frozen=True)
class Act:
    """One dialogue act with what the schema says about its slot."""

    act: str
    slot: str | None
    values: tuple[str, ...]
    description: str | None
    is_categorical: bool | None
    possible_values: tuple[str, ...] = ()

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any], values: list[str] | None = None) -> Act:
        """The item's act; ``values`` overrides the act's values (tampering, validation)."""
        raw = fields.get("act") or {}
        return cls(
            act=str(raw.get("act", "")).upper(),
            slot=raw.get("slot") or None,
            values=tuple(values if values is not None else _strings(raw.get("values"))),
            description=fields.get("slot_description") or None,
            is_categorical=parse_flag(fields.get("is_categorical")),
            possible_values=tuple(_strings(fields.get("possible_values"))),
        )

    @property
    def boolean(self) -> bool:
        """A True/False slot."""
        return is_boolean(self.values, self.possible_values, self.is_categorical)

    def with_values(self, values: list[str]) -> Act:
        """The same act with other values."""
        return Act(
            self.act,
            self.slot,
            tuple(values),
            self.description,
            self.is_categorical,
            self.possible_values,
        )

    def candidates(self) -> list[str]:
        """Appendix B candidate references."""
        return candidate_references(
            self.act, self.slot, list(self.values), self.description, boolean=self.boolean
        )

    def substitutes(self, extra: list[str]) -> list[str]:
        """Wrong values for negative references: given ones, a flipped boolean, or other
        possible values of a categorical slot."""
        own = {v.lower() for v in self.values}
        pool = list(extra)
        if self.boolean:
            pool.append("False" if self.values and self.values[0].lower() == "true" else "True")
        elif self.is_categorical:
            pool += list(self.possible_values)
        return [v for v in dict.fromkeys(pool) if v.lower() not in own]
