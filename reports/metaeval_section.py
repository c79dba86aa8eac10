"""The Meta-evaluation section of the reports and of ``cli.py metaeval``: a table per level
(columns from the declared meta-evaluation measures), the significance clusters and the
notes. Reads the JSON form (``MetaEvaluation.to_dict()``)."""

from __future__ import annotations

import html
from typing import Any

from agreement.measures import DASH, Measure, measures
from agreement.metaeval.rows import SECTION
from reports.tables import html_table, md_table

LEVEL_TITLES = {
    "segment": "Segment level (every item)",
    "group": "Group level (per input, across systems, averaged)",
    "system": "System level (per-system means)",
}


def _measures(data: dict[str, Any], level: str) -> list[Measure]:
    present = {r["statistic"] for r in data["rows"] if r["level"] == level}
    return [m for m in measures(SECTION) if m.key in present]


def _cell(m: Measure, row: dict[str, Any] | None) -> str:
    if row is None or row.get("value") is None:
        return DASH
    text = m.view.format(row["value"])
    if row.get("ci"):
        text += " " + m.view.format_ci(row["ci"])
    if row.get("threshold") is not None:
        text += f" (ε={row['threshold']:.3g})"
    return text


def level_table(data: dict[str, Any], level: str) -> tuple[list[str], list[list[Any]]]:
    """Header and rows of one level: one row per evaluator (annotators last)."""
    ms = _measures(data, level)
    by = {(r["evaluator"], r["statistic"]): r for r in data["rows"] if r["level"] == level}
    who = list(dict.fromkeys(r["evaluator"] for r in data["rows"] if r["level"] == level))
    who.sort(
        key=lambda e: next(
            r.get("role") == "annotator" for r in data["rows"] if r["evaluator"] == e
        )
    )
    header = ["evaluator", "n", *(f"{m.view.header} [95% CI]" for m in ms)]
    rows = []
    for e in who:
        ns = [by[(e, m.key)].get("n") for m in ms if (e, m.key) in by]
        rows.append(
            [e, str(max((n for n in ns if n is not None), default=0) or DASH)]
            + [_cell(m, by.get((e, m.key))) for m in ms]
        )
    return header, rows


def level_notes(data: dict[str, Any], level: str) -> list[str]:
    """Why figures of one level are missing, and what its intervals resampled."""
    out: list[str] = []
    resampled = {r["resampled"] for r in data["rows"] if r["level"] == level and r.get("resampled")}
    if resampled:
        out.append("intervals resample " + " / ".join(sorted(resampled)))
    reasons: dict[str, list[str]] = {}
    for r in data["rows"]:
        if r["level"] == level and r.get("reason"):
            reasons.setdefault(r["reason"], []).append(f"{r['evaluator']} {r['statistic']}")
    for why, what in reasons.items():
        shown = ", ".join(what[:4]) + (f" and {len(what) - 4} more" if len(what) > 4 else "")
        out.append(f"{why} ({shown})")
    constant = [r for r in data["rows"] if r["level"] == level and r.get("n_constant")]
    for r in constant:
        if r["statistic"] == "pearson":
            out.append(f"{r['evaluator']}: {r['n_constant']} groups with a constant side left out")
    return out


def cluster_lines(data: dict[str, Any]) -> list[str]:
    """One line per level and statistic: evaluators best first, with their cluster."""
    out = []
    for c in data["clusters"]:
        ranked = ", ".join(
            f"{r['cluster']}. {r['evaluator']} ({r['value']:.3f})" for r in c["ranking"]
        )
        line = f"{c['level']} {c['statistic']}: {ranked}"
        if c["left_out"]:
            line += "; not ranked: " + ", ".join(x["evaluator"] for x in c["left_out"])
        out.append(line)
    return out


INTRO = (
    "Each evaluator against the people at three levels (docs/metaeval.md): every item "
    "flattened; per input across the systems that answered it, averaged; and per-system "
    "means. Clusters: evaluators sorted best first, a new cluster where one is "
    "significantly worse (permutation test, p ≤ 0.05) than one of the current cluster, "
    "as WMT ranks metrics."
)


def _title(data: dict[str, Any]) -> str:
    grp = f", groups: {data['group']}" if data.get("group") else ""
    return f"Meta-evaluation of {data['field']} (systems: {data['system']}{grp})"


def metaeval_lines(data: dict[str, Any]) -> list[str]:
    """Plain text (the command line)."""
    out = [_title(data), ""]
    for level in LEVEL_TITLES:
        header, rows = level_table(data, level)
        if not rows:
            continue
        out += [LEVEL_TITLES[level]] + md_table(header, rows)
        out += [f"  - {n}" for n in level_notes(data, level)] + [""]
    out += ["Significance clusters:"] + [f"  {line}" for line in cluster_lines(data)]
    out += [f"Note: {n}" for n in data.get("notes", [])]
    return out


def metaeval_markdown(data: dict[str, Any] | None) -> list[str]:
    """The report's Markdown section (nothing without a meta-evaluation)."""
    if not data:
        return []
    out = ["", f"## {_title(data)}", "", INTRO]
    for level in LEVEL_TITLES:
        header, rows = level_table(data, level)
        if rows:
            out += ["", f"### {LEVEL_TITLES[level]}", ""] + md_table(header, rows)
            notes = level_notes(data, level)
            if notes:
                out += [""] + [f"- {n}" for n in notes]
    if data["clusters"]:
        out += ["", "### Significance clusters", ""] + [f"- {c}" for c in cluster_lines(data)]
    out += [f"- {n}" for n in data.get("notes", [])]
    return out


def metaeval_html(data: dict[str, Any] | None) -> str:
    """The report's HTML section ("" without a meta-evaluation)."""
    if not data:
        return ""
    parts = [f"<h2>{html.escape(_title(data))}</h2>", f"<p>{html.escape(INTRO)}</p>"]
    for level in LEVEL_TITLES:
        header, rows = level_table(data, level)
        if rows:
            parts += [f"<h3>{html.escape(LEVEL_TITLES[level])}</h3>", html_table(header, rows)]
            notes = level_notes(data, level)
            if notes:
                parts.append(
                    "<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>"
                )
    lines = cluster_lines(data) + list(data.get("notes", []))
    if lines:
        parts.append(
            "<h3>Significance clusters</h3><ul>"
            + "".join(f"<li>{html.escape(x)}</li>" for x in lines)
            + "</ul>"
        )
    return "".join(parts)
