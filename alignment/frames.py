"""The alignment document as display tables (one row per version)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agreement.measures import BINARY, EVALUATOR, measures


def _ci(ci: list[float] | None) -> str | None:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else None


def versions_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """Version, n, headline with CI, the other declared correlations, the declared binary
    decision measures, failures, cost, tokens, date."""
    head = doc["headline"]
    rows = []
    for r in doc["versions"]:
        b = r.get("binary") or {}
        rows.append(
            {
                "version": r["label"],
                "n": r["n"],
                head: r["headline"]["value"],
                f"{head} 95% CI": _ci(r["headline"]["ci"]),
                **{
                    m.header: (r["correlations"].get(m.key) or {}).get("r")
                    for m in measures(EVALUATOR)
                    if m.nested and m.key != head
                },
                **{f"binary {m.header}": b.get(m.key) for m in measures(BINARY)},
                "failure rate": r["failure_rate"],
                "mean cost": r["mean_cost"],
                "mean tokens in": r["mean_tokens_in"],
                "mean tokens out": r["mean_tokens_out"],
                "excluded (few-shot)": r["excluded"]["n"],
                "date": r["date"],
            }
        )
    return pd.DataFrame(rows)


def probes_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """Per version: self-consistency, calibration, length bias, position swap, ego bias
    and the alternative annotator test (missing figures stay empty; reasons in JSON)."""
    rows = []
    for r in doc["versions"]:
        p = r["probes"]
        sc, cal, lb = p["self_consistency"], p["calibration"], p["length_bias"]
        swap, ego, alt = p["position_swap"], p["ego_bias"], p["alt_test"]
        rows.append(
            {
                "version": r["label"],
                "samples unanimous": sc.get("unanimous"),
                "samples α": sc.get("alpha"),
                "ECE": cal.get("ece"),
                "Brier": cal.get("brier"),
                "length ρ (residual)": (lb.get("spearman") or {}).get("r"),
                "length ρ 95% CI": _ci((lb.get("spearman") or {}).get("ci")),
                "swap: share changed": swap.get("changed") if swap.get("n") else None,
                "own model over-estimated": ego.get("over_own"),  # FinGrAct's headline
                "over-estimated": ego.get("over"),
                "under-estimated": ego.get("under"),
                "alt-test ω": alt.get("winning_rate"),
                "alt-test ρ": alt.get("advantage"),
                "alt-test": alt.get("reason")
                or ("passes" if alt.get("passed") else "does not pass"),
            }
        )
    return pd.DataFrame(rows)
