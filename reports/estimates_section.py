"""The report's section on judge-assisted estimates and label planning.

Renders the JSON form of ``estimates.table.EstimateTable`` (one per scored field, made by
``workbench_api.estimates.report_estimates``), so the reports package needs no estimates
code; empty when nothing was estimated.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from agreement.statistics import DASH
from common.notes import footnoted
from reports.tables import html_table, md_table

TITLE = "Estimates: what people would say, per system"
HEADER = ["system", "method", "estimate", "95% CI", "n human", "n judge"]
PLAN_HEADER = ["system", "figure", "half-width now", "target", "more labels", "note"]
METHODS = {"human": "human only", "judge": "judge only (biased)", "ppi": "PPI++"}


def _num(x: float | None) -> str:
    return DASH if x is None else f"{x:.3f}"


def _rows(t: dict[str, Any]) -> list[list[str]]:
    rows = []
    names = {**METHODS, "corrected": "corrected (Rogan-Gladen)"}
    for g in t["groups"]:
        for key in g.get("order") or [k for k in names if k in g]:
            e, name = g[key], names[key]
            ci = f"[{_num(e['ci'][0])}, {_num(e['ci'][1])}]" if e["ci"] else DASH
            text = name + (f" (λ {e['lambda']:.2f})" if key == "ppi" and "lambda" in e else "")
            rows.append(
                [g["group"], text, _num(e["estimate"]), ci, str(g["n_human"]), str(g["n_judge"])]
            )
    return rows


def _plan_rows(t: dict[str, Any]) -> list[list[str]]:
    return [
        [
            group,
            p["figure"],
            _num(p["half_width_now"]),
            f"{p['target']:g}",
            DASH if p["more"] is None else str(p["more"]),
            p["reason"] or "",
        ]
        for group, plans in t["plans"].items()
        for p in plans
    ]


def _verdicts(t: dict[str, Any]) -> list[str]:
    """Per group: which interval leads and why, and the small-sample note."""
    return [f"{g['group']}: {g[k]}" for g in t["groups"] for k in ("why", "note") if g.get(k)]


def _intro(t: dict[str, Any]) -> str:
    return (
        f"{t['field']} ({t['field_type']}), judge {t['evaluator']}; human reference: "
        f"{t['meta']['reference']}. PPI++: prediction-powered mean with power-tuned λ "
        "(Angelopoulos, Duchi and Zrnic 2023); the judge-only interval ignores its errors."
    )


def estimates_lines(tables: Sequence[dict[str, Any]]) -> list[str]:
    """The Markdown section."""
    if not tables:
        return []
    lines = ["", f"## {TITLE}", ""]
    for t in tables:
        lines += [f"### {t['field']}", "", _intro(t), ""]
        lines += md_table(HEADER, _rows(t))
        lines += ["", *(f"- {v}" for v in _verdicts(t))] if _verdicts(t) else []
        if t["plans"]:
            lines += ["", "Human labels needed for the target half-width:", ""]
            rows, notes = footnoted(_plan_rows(t), PLAN_HEADER.index("note"))
            lines += md_table(PLAN_HEADER, rows)
            lines += ["", *(f"- {n}" for n in notes)] if notes else []
        lines.append("")
    return lines


def estimates_html(tables: Sequence[dict[str, Any]]) -> str:
    """The HTML section."""
    if not tables:
        return ""
    parts = [f"<h2>{html.escape(TITLE)}</h2>"]
    for t in tables:
        parts += [f"<h3>{html.escape(t['field'])}</h3>", f"<p>{html.escape(_intro(t))}</p>"]
        parts.append(html_table(HEADER, _rows(t)))
        parts += [f"<p>{html.escape(v)}</p>" for v in _verdicts(t)]
        if t["plans"]:
            parts.append("<p>Human labels needed for the target half-width:</p>")
            rows, notes = footnoted(_plan_rows(t), PLAN_HEADER.index("note"))
            parts.append(html_table(PLAN_HEADER, rows))
            parts += [f"<p>{html.escape(n)}</p>" for n in notes]
    return "".join(parts)
