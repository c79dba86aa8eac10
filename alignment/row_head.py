"""What every alignment row says of its version, whatever the field's type: names, date,
runs, the items the leakage guard left out, failures, cost and tokens."""

from __future__ import annotations

from typing import Any

import pandas as pd

from alignment.versions import FEW_SHOT_KEY, Version

EXCLUDED_REASON = (
    f"shown to the judge as few-shot examples ({FEW_SHOT_KEY} in the signature settings) "
    "or repeating an example's text, so left out of this version's figures"
)


def _usage(results: pd.DataFrame) -> dict[str, Any]:
    n = len(results)
    failed = int((results["status"] != "ok").sum())
    mean = (lambda col: float(results[col].mean())) if n else (lambda col: None)
    return {
        "n_results": n,
        "n_failed": failed,
        "failure_rate": failed / n if n else None,
        "mean_cost": mean("cost"),
        "mean_tokens_in": mean("tokens_in"),
        "mean_tokens_out": mean("tokens_out"),
        "total_cost": float(results["cost"].sum()) if n else 0.0,
    }


def row_head(v: Version, kept: pd.DataFrame) -> dict[str, Any]:
    """What every row says of its version: names, date, runs, the items the leakage guard
    left out (with reasons), failures, cost and tokens of the ``kept`` results."""
    return {
        "label": v.label,
        "evaluator": v.evaluator,
        "version": v.version,
        "signature": v.signature,
        "model": v.model,
        "date": v.created_at.isoformat(timespec="seconds") if v.created_at else None,
        "n_runs": len(v.run_ids),
        "swapped": v.swapped,
        "excluded": {
            "n": len(v.excluded),
            "reason": EXCLUDED_REASON if v.excluded else None,
            "item_ids": sorted(v.excluded),
            "reasons": dict(sorted(v.excluded.items())),
        },
        **_usage(kept),
    }
