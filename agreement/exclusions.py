"""Excluded annotators: their labels left out of the agreement figures, and what to say."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd


def exclusion_summary(
    annotations: pd.DataFrame, excluded: Mapping[str, Sequence[Any]]
) -> dict[str, Any]:
    """How many annotators and labels the exclusions leave out, and why.

    ``excluded``: annotator -> their exclusion records (``source``, ``reason``). Only
    annotators with labels in ``annotations`` are counted as left out.
    """
    counts = annotations["annotator"].value_counts()
    rows = []
    for name in sorted(excluded):
        rows.append(
            {
                "annotator": name,
                "n_labels": int(counts.get(name, 0)),
                "reasons": [{"source": r.source, "reason": r.reason} for r in excluded[name]],
            }
        )
    return {
        "n_annotators": sum(1 for r in rows if r["n_labels"]),
        "n_labels": sum(r["n_labels"] for r in rows),
        "annotators": rows,
    }


def without_excluded(annotations: pd.DataFrame, excluded: Mapping[str, Any]) -> pd.DataFrame:
    """The labels of annotators who are not excluded."""
    if not excluded:
        return annotations
    keep = ~annotations["annotator"].isin(list(excluded))
    return annotations.loc[keep].reset_index(drop=True)


def exclusion_line(summary: Mapping[str, Any]) -> str:
    """One sentence for reports and the side panel ("" when nobody is excluded)."""
    if not summary or not summary.get("annotators"):
        return ""
    why = "; ".join(
        f"{a['annotator']} ({', '.join(r['source'] + ': ' + r['reason'] for r in a['reasons'])})"
        for a in summary["annotators"]
    )
    n_a, n_l = summary["n_annotators"], summary["n_labels"]
    return (
        f"Excluded: {n_a} annotator{'s' if n_a != 1 else ''} and {n_l} "
        f"label{'s' if n_l != 1 else ''} - {why}."
    )
