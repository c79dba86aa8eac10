"""The alignment document as display tables (one row per version)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agreement.measures import BINARY, EVALUATOR, measures
from reports.judge_alignment import recalibration_text

__all__ = ["alt_test_n", "confusion_frame", "probes_frame", "recalibration_text", "versions_frame"]

#: What the binary calibration probe bins (Potato bins confidence vs correctness).
ECE_BINARY = "P(yes) vs human majority"


def confusion_frame(row: dict[str, Any]) -> pd.DataFrame | None:
    """A categorical row's confusion matrix: people's majority label by row, the judge's
    by column (None for other rows)."""
    c = row.get("confusion")
    if not c:
        return None
    frame = pd.DataFrame(c["matrix"], index=c["labels"], columns=c["labels"])
    frame.index.name = "people \\ judge"
    return frame


def _ci(ci: list[float] | None) -> str | None:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else None


def versions_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """Version, n, headline with CI and the n it used, the other declared correlations,
    accuracy (label answers), the declared binary decision measures, failures, cost,
    tokens, date."""
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
                f"{head} n": r["headline"].get("n"),
                **{
                    m.header: (r["correlations"].get(m.key) or {}).get("r")
                    for m in measures(EVALUATOR)
                    if m.nested and m.key != head
                },
                "accuracy": r.get("accuracy"),
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


def alt_test_n(alt: dict[str, Any]) -> str | None:
    """``3 annotators · 38 items`` (the range of items when annotators differ)."""
    ns = [a["n"] for a in alt.get("annotators") or []]
    if not ns:
        return None
    items = f"{min(ns)}" if min(ns) == max(ns) else f"{min(ns)}-{max(ns)}"
    return f"{len(ns)} annotators · {items} items"


def _n(probe: dict[str, Any]) -> int | None:
    return probe.get("n") or None


def probes_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """Per version: self-consistency, calibration, length bias, position swap, option
    order, ego bias and the alternative annotator test, each with the n it used (missing
    figures stay empty; reasons in JSON)."""
    rows = []
    for r in doc["versions"]:
        p = r["probes"]
        sc, cal, lb = p["self_consistency"], p["calibration"], p["length_bias"]
        swap, ego, alt = p["position_swap"], p["ego_bias"], p["alt_test"]
        order = p.get("option_order") or {}
        rows.append(
            {
                "version": r["label"],
                "samples unanimous": sc.get("unanimous"),
                "samples α": sc.get("alpha"),
                "samples n": _n(sc),
                "ECE": cal.get("ece"),
                "ECE definition": cal.get("definition") or (cal.get("n") and ECE_BINARY),
                "Brier": cal.get("brier"),
                "calibration n": _n(cal),
                "length ρ (residual)": (lb.get("spearman") or {}).get("r"),
                "length ρ 95% CI": _ci((lb.get("spearman") or {}).get("ci")),
                "length n": _n(lb),
                "swap: share changed": swap.get("changed") if swap.get("n") else None,
                "swap 95% CI": _ci(swap.get("ci")),
                "swap n": _n(swap),
                "options reversed: share changed": order.get("changed") if order.get("n") else None,
                "options n": _n(order),
                "own model over-estimated": ego.get("over_own"),  # FinGrAct's headline
                "over-estimated": ego.get("over"),
                "under-estimated": ego.get("under"),
                "alt-test ω": alt.get("winning_rate"),
                "alt-test ρ": alt.get("advantage"),
                "alt-test": alt.get("reason")
                or ("passes" if alt.get("passed") else "does not pass"),
                "alt-test n": alt_test_n(alt),
                "recalibrated (cross-fitted)": recalibration_text(p.get("recalibration") or {}),
                "recalibration n": _n(p.get("recalibration") or {}),
            }
        )
    return pd.DataFrame(rows)
