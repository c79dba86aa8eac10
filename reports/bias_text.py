"""The ego-centric bias in words, own-model counts first (FinGrAct's headline counts
over-estimations only on explanations the judge's own model wrote)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def count(value: float | None) -> str:
    """A count, or a mean count over runs (up to two decimals: 1.5 stays 1.5)."""
    return "-" if value is None else f"{round(value, 2):g}"


def own_match_text(bias: Mapping[str, Any]) -> str:
    """How items were found to be the judge's own: ``exact`` or ``family``, with names."""
    match = bias.get("own_match")
    if not match:
        return ""
    names = ", ".join(bias.get("own_generators") or [])
    return f"{match} match: {names}" if names else f"{match} match"


def own_model_text(bias: Mapping[str, Any]) -> str:
    """``own model: over 2.5 / under 0 of 4 (exact match: gpt-4)``, or why there is none."""
    if not bias.get("n_own"):
        return f"own model: {bias.get('fisher_reason') or 'no item of the judge own model'}"
    how = own_match_text(bias)
    return (
        f"own model: over {count(bias.get('over_own'))} / under "
        f"{count(bias.get('under_own'))} of {bias['n_own']}" + (f" ({how})" if how else "")
    )


def bias_summary(bias: Mapping[str, Any]) -> str:
    """Own-model counts, then all items': one line for tables and reports."""
    runs = bias.get("n_runs") or 1
    per = f", mean of {runs} runs" if runs > 1 else ""
    return (
        f"{own_model_text(bias)}; all: over {count(bias.get('over'))} / under "
        f"{count(bias.get('under'))} of {bias.get('n', 0)}{per}"
    )
