"""A version's scores of one field, from its stored results."""

from __future__ import annotations

import pandas as pd


def field_scores(results: pd.DataFrame, field: str, excluded: set[str]) -> pd.DataFrame:
    """The ok results' scores of ``field``: item_id, run_id, score (excluded items out)."""
    ok = results[(results["status"] == "ok") & ~results["item_id"].isin(excluded)]
    score = [s.get(field) for s in ok["scores"]]
    out = pd.DataFrame(
        {
            "item_id": ok["item_id"].to_numpy(object),
            "run_id": ok["run_id"].to_numpy(),
            "score": score,
        }
    )
    out["score"] = pd.to_numeric(out["score"], errors="coerce")
    return out.dropna(subset=["score"])


def relevant(results: pd.DataFrame, field: str) -> bool:
    """A version belongs to a field's table when a result scored the field, or when every
    result failed (its failure rate is the finding)."""
    if results.empty:
        return False
    return bool((results["status"] != "ok").all()) or any(
        s.get(field) is not None for s in results["scores"]
    )


def per_item(scores: pd.DataFrame) -> pd.Series:
    """Each item's score averaged over the version's runs."""
    return scores.groupby("item_id", sort=True)["score"].mean()
