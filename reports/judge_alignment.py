"""The report's judge-alignment section: each version's probes with their n, the
alternative annotator test per annotator, and the calibration (reliability) diagrams.

It renders the alignment document (``cli.py alignment --json``) the caller computed and
put in ``Report.alignment``; reports do not compute it (the alignment package sits on
top of this one). Each renderer is one self-contained function.
"""

from __future__ import annotations

import html
from typing import Any

from agreement.judge_probes import length_bias_entry
from reports.tables import html_table, md_table

PROBE_HEADER = [
    "version",
    "n",
    "headline (95% CI, n)",
    "ECE P(yes) vs majority (n)",
    "ECE own answer vs correct (n)",
    "swap changed (95% CI, n)",
    "options reversed changed (n)",
    "length ρ (n)",
    "alt-test ω / ρ (annotators, items)",
    "human ceiling z (pairs, n)",
    "recalibrated, cross-fitted (n)",
]
ROBUSTNESS_HEADER = ["version", "figure", "value (95% CI)", "n"]
ALT_HEADER = ["version", "annotator", "n", "judge ρ_f", "annotator ρ_h", "p", "BY p", "rejected"]


#: The recalibration document's keys in words (the figure, then the maps).
RECALIBRATION_NAMES = {"brier": "Brier", "mae": "MAE", "platt": "Platt", "isotonic": "isotonic"}


def recalibration_text(rec: dict[str, Any]) -> str | None:
    """``Brier raw 0.333 · Platt 0.242 · isotonic 0.243`` (cross-fitted; MAE for graded
    scores), or None."""
    raw = rec.get("raw")
    if not raw:
        return None
    figure = "brier" if "brier" in raw else "mae"
    parts = [f"{RECALIBRATION_NAMES[figure]} raw {raw[figure]:.3f}"]
    parts += [
        f"{RECALIBRATION_NAMES[m]} {rec[m][figure]:.3f}" for m in ("platt", "isotonic") if m in rec
    ]
    return " · ".join(parts)


def _f(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _with_n(value: Any, n: Any, ci: list[float] | None = None) -> str:
    if value is None:
        return "—"
    span = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    return f"{_f(value)}{span} (n {n})"


def probe_rows(doc: dict[str, Any]) -> list[list[str]]:
    """One row per version: the headline and every probe, each with its n."""
    rows = []
    for r in doc["versions"]:
        p, h = r["probes"], r["headline"]
        cal = p.get("calibration") or {}
        own = cal.get("own_answer") or (cal if "brier" not in cal else {})
        swap, order = p.get("position_swap") or {}, p.get("option_order") or {}
        lb, alt = p.get("length_bias") or {}, p.get("alt_test") or {}
        ns = [a["n"] for a in alt.get("annotators") or []]
        rows.append(
            [
                r["label"],
                str(r["n"]),
                _with_n(h["value"], h.get("n"), h.get("ci")),
                _with_n(cal.get("ece"), cal.get("n")) if "brier" in cal else "—",
                _with_n(own.get("ece"), own.get("n")),
                _with_n(swap.get("changed"), swap.get("n"), swap.get("ci")),
                _with_n(order.get("changed"), order.get("n"), order.get("ci")),
                _with_n(length_bias_entry(lb).value, lb.get("n")),
                alt.get("reason")
                or f"{_f(alt['winning_rate'])} / {_f(alt['advantage'])} "
                f"({'passes' if alt['passed'] else 'does not pass'}; {len(ns)}, "
                f"{min(ns) if ns else 0}-{max(ns) if ns else 0})",
                _ceiling(p.get("human_ceiling") or {}),
                _recalibrated(p.get("recalibration") or {}),
            ]
        )
    return rows


def _ceiling(hc: dict[str, Any]) -> str:
    """Judge's Verdict z with its verdict's first word, the pairs and items it used."""
    if hc.get("z") is None:
        return hc.get("reason") or "—"
    word = hc["verdict"].split(" (")[0]
    return f"{hc['z']:.2f} {word} ({hc['people']['n_pairs']} pairs, n {hc['n']})"


def _recalibrated(rec: dict[str, Any]) -> str:
    text = recalibration_text(rec)
    return f"{text} (n {rec['n']})" if text else "—"


def _bias_value(t: dict[str, Any]) -> str:
    mark = "significant: " if t["significant"] else ""
    p = f"p {t['p']:.3g}, Holm p {t['p_adjusted']:.3g}"
    if t["kind"] == "numeric":
        ci = f" [{t['ci'][0]:.3f}, {t['ci'][1]:.3f}]" if t.get("ci") else ""
        return f"{mark}r {t['r']:.3f}{ci}; {p}"
    levels = ", ".join(f"{x['level']} {x['mean']:+.3f} (n {x['n']})" for x in t["levels"])
    return f"{mark}mean residual {levels}; Kruskal-Wallis H {t['statistic']:.3f}; {p}"


def robustness_rows(doc: dict[str, Any]) -> list[list[str]]:
    """Per version: each injection family (share of scores moved, mean shift), then the
    bias scan's tests, significant after Holm's correction first."""
    out = []
    for r in doc["versions"]:
        p = r["probes"]
        for f in (p.get("injection") or {}).get("families") or []:
            if not f["n"]:
                out.append([r["label"], f"injection {f['family']}", f["reason"], "0"])
                continue
            ci, sci = f["moved_ci"], f.get("shift_ci")
            shift = f"{f['mean_shift']:+.3f}" + (f" [{sci[0]:+.3f}, {sci[1]:+.3f}]" if sci else "")
            value = f"moved {f['moved']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]; mean shift {shift}"
            out.append([r["label"], f"injection {f['family']}", value, str(f["n"])])
        for t in (p.get("bias_scan") or {}).get("tests") or []:
            out.append([r["label"], f"bias: {t['column']}", _bias_value(t), str(t["n"])])
    return out


def alt_rows(doc: dict[str, Any]) -> list[list[str]]:
    """One row per version and tested annotator (the per-annotator figures)."""
    out = []
    for r in doc["versions"]:
        for a in (r["probes"].get("alt_test") or {}).get("annotators") or []:
            out.append(
                [r["label"]]
                + [
                    _f(a.get(k))
                    for k in ("annotator", "n", "rho_f", "rho_h", "p", "p_adjusted", "rejected")
                ]
            )
    return out


def alignment_markdown(doc: dict[str, Any] | None) -> list[str]:
    """The Markdown section (empty without a document)."""
    if not doc or not doc.get("versions"):
        return []

    lines = ["", f"## Judge versions against the people on `{doc['field']}`", ""]
    if doc.get("field_type") == "pairwise":
        from reports.pairwise_judge import NOTE, PAIRWISE_HEADER, pairwise_rows

        return [*lines, NOTE, "", *md_table(PAIRWISE_HEADER, pairwise_rows(doc))]
    lines += md_table(PROBE_HEADER, probe_rows(doc))
    robust = robustness_rows(doc)
    if robust:
        lines += ["", "Robustness (injection probe runs; bias scan of the residual):", ""]
        lines += md_table(ROBUSTNESS_HEADER, robust)
    rows = alt_rows(doc)
    if rows:
        lines += ["", f"Alternative annotator test (ε = {doc['meta']['epsilon']}):", ""]
        lines += md_table(ALT_HEADER, rows)
    for r in doc["versions"]:
        bins = (r["probes"].get("calibration") or {}).get("bins") or []
        if bins:
            lines += ["", f"Reliability diagram of {r['label']} (bins):", ""]
            lines += md_table(
                ["from", "n", "mean confidence / P(yes)", "share correct / positive"],
                [
                    [
                        f"{b['lo']:.1f}",
                        str(b["n"]),
                        _f(b.get("confidence", b.get("mean_probability"))),
                        _f(b.get("accuracy", b.get("share_positive"))),
                    ]
                    for b in bins
                ],
            )
    return lines


def alignment_html(doc: dict[str, Any] | None) -> str:
    """The HTML section with the reliability diagrams (empty without a document)."""
    if not doc or not doc.get("versions"):
        return ""
    from reports.figures import reliability_diagram
    from reports.plotly_embed import figure_html

    head = f"<h2>Judge versions against the people on {html.escape(doc['field'])}</h2>"
    if doc.get("field_type") == "pairwise":
        from reports.pairwise_judge import NOTE, PAIRWISE_HEADER, pairwise_rows

        rows = pairwise_rows(doc)
        return "\n".join([head, f"<p>{html.escape(NOTE)}</p>", html_table(PAIRWISE_HEADER, rows)])
    parts = [head, html_table(PROBE_HEADER, probe_rows(doc))]
    robust = robustness_rows(doc)
    if robust:
        parts.append("<p>Robustness (injection probe runs; bias scan of the residual):</p>")
        parts.append(html_table(ROBUSTNESS_HEADER, robust))
    rows = alt_rows(doc)
    if rows:
        parts.append(f"<p>Alternative annotator test (ε = {doc['meta']['epsilon']}):</p>")
        parts.append(html_table(ALT_HEADER, rows))
    for n, r in enumerate(doc["versions"], 1):
        fig = reliability_diagram(r["label"], r["probes"].get("calibration") or {})
        if fig is not None:
            parts.append(figure_html(fig, f"reliability-{n}"))
    return "\n".join(parts)
