"""An estimate table as display frames: one row per group and method, differences, plans."""

from __future__ import annotations

import pandas as pd

from estimates.table import METHOD_LABELS, METHOD_NOTES, EstimateTable, verdict

#: printf formats of the frames' number columns: three decimals, as the intervals have
#: (not 0.5408 beside 0.698), whole numbers for an effective n.
FORMATS = {
    "estimate": "%.3f",
    "lambda": "%.3f",
    "effective n": "%.0f",
    "interval saved": "%.3f",
    "difference": "%+.3f",
    "half-width now": "%.3f",
    "target": "%.3f",
}


def formats_of(frame: pd.DataFrame) -> dict[str, str]:
    """:data:`FORMATS` of the columns ``frame`` has."""
    return {c: f for c, f in FORMATS.items() if c in frame.columns}


def method_notes() -> str:
    """What each method is, named as the tables name it (``PPI++: ...``, not ``ppi: ...``)."""
    return " ".join(f"{METHOD_LABELS[k]}: {v}." for k, v in METHOD_NOTES.items())


def _ci(ci: tuple[float, float] | None) -> str | None:
    return None if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def verdict_lines(t: EstimateTable) -> list[str]:
    """Per group: which interval leads the table and why, and the small-sample note."""
    out = []
    for g in t.groups:
        v = verdict(g)
        out += [f"{g.group}: {v[k]}" for k in ("why", "note") if v[k]]
    return out


def estimates_frame(t: EstimateTable) -> pd.DataFrame:
    """system, method, estimate, 95% CI, n human, n judge, lambda, effective n, note;
    per system the narrowest valid interval first."""
    rows = []
    for g in t.groups:
        methods = g.methods()
        for key in verdict(g)["order"]:
            e = methods[key]
            ppi = key == "ppi"
            rows.append(
                {
                    "system": g.group,
                    "method": METHOD_LABELS[key],
                    "estimate": e.estimate,
                    "95% CI": _ci(e.ci),
                    "n human": g.n_human,
                    "n judge": g.n_judge,
                    "lambda": e.extra.get("lambda") if ppi else None,
                    "effective n": g.effective_n if ppi else None,
                    "interval saved": g.saved if ppi else None,
                    "note": e.reason,
                }
            )
    return pd.DataFrame(rows)


def differences_frame(t: EstimateTable) -> pd.DataFrame:
    """One row per pair of systems and method."""
    rows = [
        {
            "A - B": f"{d.a} - {d.b}",
            "method": METHOD_LABELS[key],
            "difference": e.estimate,
            "95% CI": _ci(e.ci),
            "paired": d.paired,
            "n pairs": d.n_pairs if d.paired else None,
            "note": e.reason,
        }
        for d in t.differences
        for key, e in d.estimates.items()
    ]
    return pd.DataFrame(rows)


def plans_frame(t: EstimateTable) -> pd.DataFrame:
    """One row per group and figure: labels now, needed, more, and why not."""
    rows = [
        {
            "system": group,
            "figure": p.figure,
            "half-width now": p.half_width_now,
            "target": p.target,
            "labelled now": p.n_now,
            "needed": p.n_needed,
            "more": p.more,
            "note": p.reason,
        }
        for group, plans in t.plans.items()
        for p in plans
    ]
    return pd.DataFrame(rows)
