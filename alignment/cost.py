"""What a version cost, in words: dollars, or why the cost is unknown.

Results store a cost of 0 when the judge's model has no known price (the price table in
``evaluators/llm/config.py`` or ``WORKBENCH_LLM_PRICE_IN`` / ``_OUT``), so a zero beside
counted tokens means "unknown", never "free"; without tokens no model was called.
"""

from __future__ import annotations

from typing import Any

#: The settings that price a model's tokens (USD per million input / output tokens).
PRICE_SETTINGS = "WORKBENCH_LLM_PRICE_IN and WORKBENCH_LLM_PRICE_OUT"
UNKNOWN = "price unknown"


def _tokens(r: dict[str, Any]) -> float:
    return (r.get("mean_tokens_in") or 0) + (r.get("mean_tokens_out") or 0)


def price_unknown(r: dict[str, Any]) -> bool:
    """True when an alignment row used model tokens but stored no cost for them."""
    return not r.get("mean_cost") and _tokens(r) > 0


def cost_text(r: dict[str, Any], key: str = "mean_cost") -> str | None:
    """A row's cost (``key``: ``mean_cost`` per result or ``total_cost``) in USD;
    ``price unknown`` when tokens were used without a known price; None when no model
    tokens were used (imported or local scores)."""
    if price_unknown(r):
        return UNKNOWN
    cost = r.get(key)
    if cost is None or (not cost and not _tokens(r)):
        return None
    return f"${cost:.4f}"


def price_note(r: dict[str, Any]) -> str | None:
    """Why a row's cost is unknown and how to price later runs (None when it is known)."""
    if not price_unknown(r):
        return None
    model = r.get("model") or "this judge's model"
    return (
        f"cost unknown: no price for model {model}, so its results were stored at cost 0; "
        f"set {PRICE_SETTINGS} (USD per million tokens) to price the runs that follow"
    )
