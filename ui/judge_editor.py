"""The Judges page's form state: a definition to widget values and back (no drawing)."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

OUTPUT_TYPES = ("binary", "label", "integer", "decimal", "fact_labels")
OUTPUT_TITLES = {
    "binary": "Binary (yes / no)",
    "label": "One of a list of labels",
    "integer": "Whole number in a range",
    "decimal": "Decimal number in a range",
    "fact_labels": "C / M per fact",
}
STARTER_TEMPLATE = "{# Refer to item fields by name, e.g. {{ field }} #}\n"
#: Widget key -> default value of a new judge.
DEFAULTS: dict[str, Any] = {
    "jd_name": "",
    "jd_description": "",
    "jd_fields": [],
    "jd_type": "binary",
    "jd_labels": "",
    "jd_min": 1.0,
    "jd_max": 5.0,
    "jd_facts": None,
    "jd_expl": True,
    "jd_prob": False,
    "jd_model": "",
    "jd_temp": 0.0,
    "jd_samples": 1,
    "jd_agg": "majority",
    "jd_max_tokens": 600,
    "jd_swap": False,
    "jd_examples": [],
    "jd_system": "",
    "jd_template": STARTER_TEMPLATE,
}


def load_into_state(
    state: MutableMapping[str, Any], name: str, definition: Mapping[str, Any] | None
) -> None:
    """Fill the form from a stored definition (a blank form when None)."""
    for key, value in DEFAULTS.items():
        state[key] = list(value) if isinstance(value, list) else value
    state["jd_name"] = name
    if not definition:
        return
    out = definition.get("output") or {}
    sampling = definition.get("sampling") or {}
    few = definition.get("few_shot") or {}
    state.update(
        {
            "jd_description": definition.get("description", ""),
            "jd_fields": list(definition.get("fields") or []),
            "jd_type": out.get("type", "binary"),
            "jd_labels": ", ".join(out.get("labels") or []),
            "jd_min": float(out["min"]) if out.get("min") is not None else 1.0,
            "jd_max": float(out["max"]) if out.get("max") is not None else 5.0,
            "jd_facts": out.get("facts_field"),
            "jd_expl": bool(out.get("explanation", True)),
            "jd_prob": bool(out.get("probability", False)),
            "jd_model": sampling.get("model") or "",
            "jd_temp": float(sampling.get("temperature", 0.0)),
            "jd_samples": int(sampling.get("samples", 1)),
            "jd_agg": sampling.get("aggregate", "majority"),
            "jd_max_tokens": int(sampling.get("max_tokens") or 600),
            "jd_swap": bool(definition.get("swap_texts", False)),
            "jd_examples": [str(e["item_id"]) for e in few.get("examples") or []],
            "jd_system": definition.get("system", ""),
            "jd_template": definition.get("template", ""),
        }
    )


def definition_from_state(
    state: Mapping[str, Any], kind: str, project: str | None
) -> dict[str, Any]:
    """The definition the form describes (checked later by ``parse_spec``)."""
    kind_of_output = state.get("jd_type") or "binary"
    output: dict[str, Any] = {
        "type": kind_of_output,
        "explanation": bool(state.get("jd_expl", True)),
    }
    if kind_of_output == "label":
        output["labels"] = [
            x.strip() for x in str(state.get("jd_labels") or "").split(",") if x.strip()
        ]
    if kind_of_output in ("integer", "decimal"):
        output["min"], output["max"] = state.get("jd_min"), state.get("jd_max")
    if kind_of_output == "fact_labels":
        output["facts_field"] = state.get("jd_facts")
    if kind_of_output == "binary":
        output["probability"] = bool(state.get("jd_prob"))
    examples = list(state.get("jd_examples") or [])
    return {
        "kind": kind,
        "fields": list(state.get("jd_fields") or []),
        "description": state.get("jd_description") or "",
        "system": state.get("jd_system") or "",
        "template": state.get("jd_template") or "",
        "output": output,
        "sampling": {
            "model": (state.get("jd_model") or "").strip() or None,
            "temperature": float(state.get("jd_temp") or 0.0),
            "samples": int(state.get("jd_samples") or 1),
            "aggregate": state.get("jd_agg") or "majority",
            "max_tokens": int(state.get("jd_max_tokens") or 600),
        },
        "swap_texts": bool(state.get("jd_swap")),
        "few_shot": {"project": project, "item_ids": examples} if examples else {},
    }
