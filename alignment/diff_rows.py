"""What both version diffs (scores and labels) share: the table's columns and each item's
latest successful result."""

from __future__ import annotations

from typing import Any

import pandas as pd

COLUMNS = [
    *("item_id", "score_a", "score_b", "human", "movement", "flipped"),
    *("reasoning_a", "reasoning_b", "fact_changes"),
]


def last_ok(results: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per item, the reasoning and details of its result in the version's latest run."""
    ok = results[results["status"] == "ok"].sort_values("run_id", kind="stable")
    return {
        item: {"reasoning": r, "details": d}
        for item, r, d in zip(ok["item_id"], ok["reasoning"], ok["details"], strict=True)
    }
