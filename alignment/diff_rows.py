"""What both version diffs (scores and labels) share: the table's columns and each item's
latest successful result."""

from __future__ import annotations

from typing import Any

import pandas as pd

COLUMNS = [
    *("item_id", "score_a", "score_b", "human", "movement", "flipped"),
    *("reasoning_a", "reasoning_b", "fact_changes"),
]


def diff_headers(label_a: str, label_b: str) -> dict[str, str]:
    """The diff's columns as a reader names them: each version's score and reasoning under
    its label."""
    return {
        "item_id": "item",
        "score_a": f"score · {label_a}",
        "score_b": f"score · {label_b}",
        "human": "people (mean or majority)",
        "movement": "moved",
        "flipped": "decision flipped",
        "reasoning_a": f"reasoning · {label_a}",
        "reasoning_b": f"reasoning · {label_b}",
        "fact_changes": "fact labels changed",
    }


def diff_formats(table: pd.DataFrame, label_a: str, label_b: str) -> dict[str, str]:
    """printf formats of the diff's number columns (under :func:`diff_headers`' names):
    both scores and the people's mean with three decimals, not 1 beside 0.7333."""
    headers = diff_headers(label_a, label_b)
    return {
        headers[c]: "%.3f"
        for c in ("score_a", "score_b", "human")
        if c in table.columns and pd.api.types.is_numeric_dtype(table[c])
    }


def last_ok(results: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per item, the reasoning and details of its result in the version's latest run."""
    ok = results[results["status"] == "ok"].sort_values("run_id", kind="stable")
    return {
        item: {"reasoning": r, "details": d}
        # ids as objects: iterating an Arrow string column converts each one separately
        for item, r, d in zip(
            ok["item_id"].to_numpy(object), ok["reasoning"], ok["details"], strict=True
        )
    }
