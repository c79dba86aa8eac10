"""Grouping dialogue acts into utterances, for SGSAcc's per-utterance figure.

The SGSAcc paper counts a generated utterance faithful only when *all* of its acts are
realised. Items here are single acts, so acts are grouped by utterance:

1. the item field ``utterance_id`` (the SGD import writes ``{split/}{dialogue}:{turn}``);
2. else ``dialogue_id`` and ``turn_index`` together;
3. else the item is its own utterance (``keyed=False``; reports count these).

A tampered copy (``original_values`` from the SGD import, ``tampered_from`` in the demo)
is a separate negative utterance: the turn's real acts with this one act replaced, i.e.
the real acts of its utterance other than the one it was copied from, plus itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_TAMPER_SUFFIX = re.compile(r":(neg|tampered)$")


@dataclass(frozen=True)
class UtteranceKey:
    """Which utterance an act belongs to."""

    utterance: str
    keyed: bool
    tampered_of: str | None = None  # the real act's item id, for a tampered copy

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, kept in result details."""
        return {"id": self.utterance, "keyed": self.keyed, "tampered_of": self.tampered_of}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UtteranceKey:
        """Back from :meth:`as_dict`."""
        return cls(str(data["id"]), bool(data["keyed"]), data.get("tampered_of"))


def original_values(fields: Mapping[str, Any]) -> list[str] | None:
    """A tampered copy's real values (``original_values`` or ``tampered_from``; one value
    may be given bare), None for a real act."""
    for name in ("original_values", "tampered_from"):
        value = fields.get(name)
        if value not in (None, "", []):
            return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
    return None


def utterance_key(item_id: str, fields: Mapping[str, Any]) -> UtteranceKey:
    """The utterance of one act item (see the module docstring)."""
    tampered = original_values(fields) is not None
    original = _TAMPER_SUFFIX.sub("", item_id) if tampered else None
    if fields.get("utterance_id") not in (None, ""):
        return UtteranceKey(str(fields["utterance_id"]), True, original)
    dialogue, turn = fields.get("dialogue_id"), fields.get("turn_index")
    if dialogue not in (None, "") and turn not in (None, ""):
        return UtteranceKey(f"{dialogue}:{turn}", True, original)
    return UtteranceKey(item_id, False, original)


def group_units(keys: Mapping[str, UtteranceKey]) -> dict[str, list[str]]:
    """Unit id -> the act item ids it holds. Real acts group by utterance; every tampered
    copy is its own unit (``{utterance}~{item_id}``) with the real acts it did not
    replace."""
    real: dict[str, list[str]] = {}
    for item_id, key in keys.items():
        if key.tampered_of is None:
            real.setdefault(key.utterance, []).append(item_id)
    units = dict(real)
    for item_id, key in keys.items():
        if key.tampered_of is not None:
            others = [i for i in real.get(key.utterance, []) if i != key.tampered_of]
            units[f"{key.utterance}~{item_id}"] = [*others, item_id]
    return units


def unit_values(
    units: Mapping[str, list[str]], per_act: Mapping[str, float | None]
) -> dict[str, float]:
    """1.0 for a unit whose acts are all 1, 0.0 when any act is 0; a unit with an act of
    unknown value (failed, or no human majority) and no 0 is left out."""
    out: dict[str, float] = {}
    for unit, acts in units.items():
        values = [per_act.get(a) for a in acts]
        if any(v is not None and v < 0.5 for v in values):
            out[unit] = 0.0
        elif values and all(v is not None for v in values):
            out[unit] = 1.0
    return out


def share(values: Iterable[float]) -> float | None:
    """Mean of 0/1 values, None when there are none."""
    values = list(values)
    return sum(values) / len(values) if values else None
