"""The alignment document as display tables (one row per version)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agreement.judge_probes import LENGTH_BIAS, length_bias_entry
from agreement.measures import BINARY, EVALUATOR, measures
from alignment.cost import cost_text, price_note
from reports.judge_alignment import recalibration_text

__all__ = [
    "alt_test_n",
    "ci_note",
    "confusion_frame",
    "fixed3",
    "headline_name",
    "cost_text",
    "price_note",
    "probes_formats",
    "probes_frame",
    "recalibration_text",
    "undrawn_versions",
    "versions_formats",
    "versions_frame",
]

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


def fixed3(x: float) -> str:
    """Three decimals, with no minus sign on a value that rounds to zero."""
    text = f"{x:.3f}"
    return "0.000" if text == "-0.000" else text  # a bound just below 0 is no sign


def _ci(ci: list[float] | None) -> str | None:
    return f"[{fixed3(ci[0])}, {fixed3(ci[1])}]" if ci else None


#: Below this many items a bootstrap that never moves is put down to the small n.
SMALL_N = 10


def ci_note(ci: list[float] | None, n: int | None) -> str | None:
    """Why an interval has no width (every resample gave the same value), else None."""
    if not ci or abs(ci[1] - ci[0]) >= 5e-4:
        return None
    if n is not None and n < SMALL_N:
        return f"no spread: n = {n} items is too few for the resamples to differ"
    return "no spread: every resample gives the same value (the scores or labels do not vary)"


def _ci_text(ci: list[float] | None, n: int | None) -> str | None:
    note = ci_note(ci, n)
    return f"{_ci(ci)} ({note})" if note else _ci(ci)


def undrawn_versions(doc: dict[str, Any]) -> list[str]:
    """The versions without a headline figure (left out of the chart), each with why."""
    return [
        f"{r['label']}: {r['headline'].get('reason') or 'undefined on these items'}"
        for r in doc["versions"]
        if r["headline"]["value"] is None
    ]


def headline_name(key: str) -> str:
    """The headline statistic in words, as the other columns name it (``spearman`` ->
    ``Spearman``; ``kappa`` stays)."""
    names = {m.key: m.view.header for m in measures(EVALUATOR)}
    return {**names, "agreement_with_ties": "agreement with ties"}.get(key, key)


def versions_formats(doc: dict[str, Any]) -> dict[str, str]:
    """printf formats of :func:`versions_frame`'s number columns: statistics with three
    decimals (shares too), tokens as whole numbers."""
    head = doc["headline"]
    stats = [headline_name(head), "accuracy"]
    stats += [m.view.header for m in measures(EVALUATOR) if m.nested and m.key != head]
    stats += [f"binary {m.view.header}" for m in measures(BINARY)]
    return {
        **dict.fromkeys(stats, "%.3f"),
        "failure rate": "%.3f",
        "mean tokens in": "%.0f",
        "mean tokens out": "%.0f",
    }


def versions_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """Version, n, headline with CI and the n it used, the other declared correlations,
    accuracy (label answers), the declared binary decision measures, failures, cost,
    tokens, date."""
    head = doc["headline"]
    name = headline_name(head)
    rows = []
    for r in doc["versions"]:
        b = r.get("binary") or {}
        rows.append(
            {
                "version": r["label"],
                "n": r["n"],
                name: r["headline"]["value"],
                f"{name} 95% CI": _ci_text(r["headline"]["ci"], r["headline"].get("n")),
                f"{name} n": r["headline"].get("n"),
                "why undefined": None
                if r["headline"]["value"] is not None
                else r["headline"].get("reason") or "undefined on these items",
                **{
                    m.view.header: (r["correlations"].get(m.key) or {}).get("r")
                    for m in measures(EVALUATOR)
                    if m.nested and m.key != head
                },
                "accuracy": r.get("accuracy"),
                **{f"binary {m.view.header}": b.get(m.key) for m in measures(BINARY)},
                "failure rate": r["failure_rate"],
                "mean cost": cost_text(r),
                "mean tokens in": r["mean_tokens_in"],
                "mean tokens out": r["mean_tokens_out"],
                "excluded (few-shot)": r["excluded"]["n"],
                "date": r["date"],
            }
        )
    return pd.DataFrame(rows)


#: The probe table's figures, shown with three decimals like the versions table.
PROBE_FIGURES = (
    "samples unanimous", "samples α", "ECE", "Brier", "length ρ (residual)",
    "swap: share changed", "options reversed: share changed", "own model over-estimated",
    "over-estimated", "under-estimated", "alt-test ω", "alt-test ρ", "human ceiling z",
)  # fmt: skip


def probe_help(epsilon: float) -> dict[str, str]:
    """What each probe column means: the table's column help (a header's tooltip);
    ``epsilon`` is the alternative annotator test's margin."""
    return {
        "samples unanimous": "share of items whose k samples of the version all agree",
        "samples α": "Krippendorff's alpha with the version's samples as raters",
        "ECE": "expected calibration error, 10 equal-width bins (see ECE definition)",
        "ECE definition": "binary field: the judge's P(yes) against the human majority; "
        "label judge: its confidence in its own answer against correctness (Potato's)",
        "Brier": "Brier score of the same probabilities as the ECE",
        "length ρ (residual)": LENGTH_BIAS.view.name,
        "swap: share changed": "share of decisions a swapped-position run changed, "
        "95% Wilson interval beside it",
        "options reversed: share changed": "share of decisions a run with the options in "
        "reverse order changed",
        "own model over-estimated": "ego-centric bias (FinGrAct's headline): the judge's own "
        "model's outputs scored above the people",
        "over-estimated": "items the judge scored above the people",
        "under-estimated": "items the judge scored below the people",
        "alt-test ω": "alternative annotator test: the share of annotators the judge can "
        "replace (leave one out, one-sided paired t-test with "
        f"ε = {epsilon}, Benjamini-Yekutieli at q = 0.05; "
        "passes at ω ≥ 0.5; needs 3 annotators with 30 items each)",
        "alt-test ρ": "alternative annotator test: the judge's average advantage probability",
        "human ceiling z": "Judge's Verdict: (judge's mean kappa with each annotator - the "
        "annotator pairs' mean kappa) / their SD; |z| < 1 human-like, z > 1 super-consistent; "
        "after a correlation filter (Pearson r ≥ 0.80 with the people's mean), quadratic "
        "weights on graded fields",
        "recalibrated (cross-fitted)": "Platt / isotonic maps, 5-fold cross-fitted, beside the "
        "raw figure",
    }


def probes_formats() -> dict[str, str]:
    """printf formats of :func:`probes_frame`'s figures (three decimals each)."""
    return dict.fromkeys(PROBE_FIGURES, "%.3f")


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
                "ECE definition": cal.get("definition") or (ECE_BINARY if cal.get("n") else None),
                "Brier": cal.get("brier"),
                "calibration n": _n(cal),
                LENGTH_BIAS.view.header: length_bias_entry(lb).value,
                f"{LENGTH_BIAS.view.short} 95% CI": _ci(length_bias_entry(lb).ci),
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
                "human ceiling z": (hc := p.get("human_ceiling") or {}).get("z"),
                "human ceiling": hc.get("verdict") if hc.get("z") is not None else hc.get("reason"),
                "human ceiling n": f"{hc['people']['n_pairs']} pairs · {hc['n']} items"
                if hc.get("people")
                else None,
                "recalibrated (cross-fitted)": recalibration_text(p.get("recalibration") or {}),
                "recalibration n": _n(p.get("recalibration") or {}),
            }
        )
    return pd.DataFrame(rows)
