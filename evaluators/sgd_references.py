"""Candidate entailment references for a dialogue act (SGSAcc, Chen et al., Appendix B).

Rules, for an act with type ``act``, slot ``slot`` (underscores read as spaces), values
and the schema's slot description ``desc``:

- REQUEST: "Request {desc}." and "Request {slot}." (example values are ignored).
- GOODBYE: "Have a good day.", "Bye bye.", "See you."
- REQ_MORE: "What else do you need?", "What else can I help you with?",
  "Is there anything else?"
- Any other act with a non-boolean slot: "{desc} is {value}." and "{slot} is {value}.";
  with several values "{desc} are {v1}, {v2} and {vN}." and the same with the slot name.
- Boolean slot, True: "{desc}? Yes." and "{slot}? Yes."; then, if the slot name has the
  word "has"/"have", "Does {slot}." with has/have read as "have" (the paper writes
  "Does {slot}"; we keep it grammatical); else if it has the word "is", "{slot}." itself;
  else "Has {slot}.", "Have {slot}.", "Is {slot}.".
- Boolean slot, False: "{desc}? No." and "{slot}? No."; then "Does not {slot}." (has/have
  as "have"), or the slot name with "is" replaced by "is not"; a slot name with neither
  gets the paper's Table 3 forms "Has no {slot}.", "Is not {slot}.", "Does not {slot}."
  (Appendix B's prose says "has not", "have not", "is not"; where the two differ we
  follow Table 3, which shows the forms the authors ran).

Candidates are never repeated: two rules giving the same sentence (ignoring case and
spacing, e.g. a description equal to the slot name) yield it once.

Not covered by the appendix, so ours: acts without a slot (NOTIFY_SUCCESS,
NOTIFY_FAILURE, ...) get short sentences of their meaning; a slot without a schema
description (``count``, ``intent``) gets only the slot-name forms; intent values such as
"ReserveRestaurant" are read as words ("reserve restaurant").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

BOOLEAN_VALUES = {"true", "false"}
FIXED = {
    "GOODBYE": ("Have a good day.", "Bye bye.", "See you."),
    "REQ_MORE": (
        "What else do you need?",
        "What else can I help you with?",
        "Is there anything else?",
    ),
    # Our additions for slot-less acts the appendix does not list.
    "NOTIFY_SUCCESS": ("The request was successful.", "It is done."),
    "NOTIFY_FAILURE": ("The request failed.", "It could not be done."),
}


def slot_words(slot: str) -> str:
    """``has_live_music`` -> ``has live music``."""
    return slot.replace("_", " ").strip()


def value_words(slot: str, value: str) -> str:
    """Values as said; intent names in CamelCase are split into words."""
    if slot == "intent":
        return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", value).lower()
    return value


def join_values(values: Sequence[str]) -> str:
    """``a``; ``a and b``; ``a, b and c``."""
    if len(values) == 1:
        return values[0]
    return ", ".join(values[:-1]) + " and " + values[-1]


def sentence(text: str) -> str:
    """First letter up, a full stop unless it already ends with punctuation."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def is_boolean(
    values: Sequence[str],
    possible_values: Sequence[str] | None = None,
    is_categorical: bool | None = None,
) -> bool:
    """A boolean slot: possible values True/False, or categorical with True/False values."""
    if possible_values:
        return {str(v).lower() for v in possible_values} == BOOLEAN_VALUES
    return (
        bool(values)
        and is_categorical is not False
        and all(str(v).lower() in BOOLEAN_VALUES for v in values)
    )


def _boolean_candidates(slot: str, desc: str | None, value: bool) -> list[str]:
    name = slot_words(slot)
    words = name.split()
    answer = "Yes." if value else "No."
    out = [f"{d}? {answer}" for d in (desc, name) if d]
    if {"has", "have"} & set(words):
        rest = " ".join("have" if w in ("has", "have") else w for w in words)
        out.append(f"Does {rest}" if value else f"Does not {rest}")
    elif "is" in words:
        out.append(name if value else " ".join("is not" if w == "is" else w for w in words))
    elif value:
        out += [f"{p} {name}" for p in ("has", "have", "is")]
    else:  # Table 3 (additional_luggage = False), not the appendix prose
        out += [f"{p} {name}" for p in ("has no", "is not", "does not")]
    return [sentence(c) for c in out]


def candidate_references(
    act: str,
    slot: str | None = None,
    values: Sequence[str] = (),
    description: str | None = None,
    *,
    boolean: bool = False,
) -> list[str]:
    """Candidate hypotheses for one act, in rule order, without duplicates (case and
    spacing aside)."""
    seen: dict[str, str] = {}
    for text in _candidates(act, slot, values, description, boolean):
        seen.setdefault(" ".join(text.casefold().split()), text)
    return list(seen.values())


def _candidates(
    act: str,
    slot: str | None,
    values: Sequence[str],
    description: str | None,
    boolean: bool,
) -> list[str]:
    act = act.upper()
    desc = description.strip().rstrip(".") if description else None
    if act in FIXED:
        return list(FIXED[act])
    if act == "REQUEST":
        if not slot:
            return []
        return [sentence(f"Request {_lower_first(d)}") for d in (desc, slot_words(slot)) if d]
    if not slot:
        return [sentence(act.replace("_", " ").lower())]
    if not values:
        return [sentence(d) for d in (desc, slot_words(slot)) if d]
    if boolean and len(values) == 1:
        return _boolean_candidates(slot, desc, values[0].lower() == "true")
    said = [value_words(slot, v) for v in values]
    verb = "is" if len(said) == 1 else "are"
    heads = [d for d in (desc, slot_words(slot)) if d]
    return [sentence(f"{h} {verb} {join_values(said)}") for h in heads]
