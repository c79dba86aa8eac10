"""Plotly figures of an agreement document, shared by the agreement page and HTML reports."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from agreement import AgreementDocument


def _layout(fig: go.Figure, title: str, height: int = 360) -> go.Figure:
    fig.update_layout(
        title=title, height=height, margin=dict(l=40, r=20, t=50, b=40), template="plotly_white"
    )
    return fig


def reliability_bars(doc: dict[str, Any]) -> go.Figure:
    """Alpha (each level) and Fleiss' kappa per field, with 95% bootstrap intervals."""
    fig = go.Figure()
    rows = []
    for section in ("fields", "derived"):
        for name, f in doc.get(section, {}).items():
            for level, value in f["krippendorff_alpha"].items():
                rows.append(
                    (f"alpha {level}", name, value, f.get("krippendorff_alpha_ci", {}).get(level))
                )
            if f.get("fleiss_kappa") is not None:
                rows.append(("Fleiss kappa", name, f["fleiss_kappa"], f.get("fleiss_kappa_ci")))
    y_min, y_max = min(-0.1, *(r[2] for r in rows if r[2] is not None), 0), 1.05
    for stat in dict.fromkeys(r[0] for r in rows):
        part = [r for r in rows if r[0] == stat and r[2] is not None]
        if not part:
            continue
        y = [r[2] for r in part]
        # error bars stop at the axis range instead of running off it
        hi = [(min(r[3][1], y_max) - r[2]) if r[3] else 0 for r in part]
        lo = [(r[2] - max(r[3][0], y_min)) if r[3] else 0 for r in part]
        fig.add_bar(
            name=stat,
            x=[r[1] for r in part],
            y=y,
            error_y=dict(type="data", array=hi, arrayminus=lo),
        )
    fig.update_yaxes(range=[y_min, y_max])
    return _layout(fig, "Agreement among annotators (95% bootstrap CI)")


def kappa_heatmap(field: dict[str, Any], name: str) -> go.Figure | None:
    """Cohen's kappa for every annotator pair of one field as a symmetric heatmap."""
    pairs = field.get("cohen_kappa_pairs") or {}
    if not pairs:
        return None
    people = sorted({p for key in pairs for p in key.split("|")})
    m = pd.DataFrame(np.nan, index=people, columns=people)
    for key, value in pairs.items():
        a, b = key.split("|")
        m.loc[a, b] = m.loc[b, a] = value if value is not None else np.nan
    for p in people:
        m.loc[p, p] = 1.0
    fig = go.Figure(
        go.Heatmap(
            z=m.to_numpy(),
            x=people,
            y=people,
            zmin=-1,
            zmax=1,
            colorscale="RdBu",
            text=m.round(2).to_numpy(),
            texttemplate="%{text}",
            hoverongaps=False,
        )
    )
    return _layout(fig, f"Cohen's kappa per annotator pair: {name}", 380)


def scatter(pairs: pd.DataFrame, evaluator: str, field: str, r: float | None) -> go.Figure:
    """Evaluator score (mean over runs) vs mean human value per item, with the OLS fit."""
    fig = go.Figure(
        go.Scatter(
            x=pairs["human"],
            y=pairs["score"],
            mode="markers",
            text=pairs["item_id"],
            name="items",
            opacity=0.6,
        )
    )
    if len(pairs) >= 2 and pairs["human"].nunique() > 1:
        slope, intercept = np.polyfit(pairs["human"], pairs["score"], 1)
        xs = np.linspace(pairs["human"].min(), pairs["human"].max(), 50)
        fig.add_scatter(x=xs, y=slope * xs + intercept, mode="lines", name="fit")
    fig.update_xaxes(title="mean human value")
    fig.update_yaxes(title=f"{evaluator} score")
    rtxt = f" (Pearson r = {r:.3f})" if r is not None else ""
    return _layout(fig, f"{evaluator} vs humans on {field}{rtxt}")


def confusion(binary: dict[str, Any], title: str) -> go.Figure:
    """2x2 confusion matrix of evaluator decisions vs the human majority label."""
    c = binary["confusion"]
    z = [[c["tn"], c["fp"]], [c["fn"], c["tp"]]]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=["decided 0", "decided 1"],
            y=["human 0", "human 1"],
            colorscale="Blues",
            text=z,
            texttemplate="%{text}",
            showscale=False,
        )
    )
    return _layout(fig, title, 300)


def bias_bars(bias: dict[str, Any], title: str) -> go.Figure:
    """Over- and under-estimations (gap >= 2 on 0-5) per item generator."""
    gens = bias.get("by_generator") or {}
    names = list(gens)
    fig = go.Figure()
    fig.add_bar(
        name="over",
        x=names,
        y=[gens[g]["over"] / max(gens[g]["n"], 1) for g in names],
        text=[f"{gens[g]['over']}/{gens[g]['n']}" for g in names],
    )
    fig.add_bar(
        name="under",
        x=names,
        y=[gens[g]["under"] / max(gens[g]["n"], 1) for g in names],
        text=[f"{gens[g]['under']}/{gens[g]['n']}" for g in names],
    )
    fig.update_yaxes(title="share of items", rangemode="tozero")
    return _layout(fig, title)


def timeline(points: list[dict[str, Any]], name: str) -> go.Figure:
    """Alpha as labels accumulate."""
    fig = go.Figure(
        go.Scatter(
            x=[p["at"] for p in points],
            y=[p["alpha"] for p in points],
            mode="lines+markers",
            text=[f"{p['n_ratings']} ratings" for p in points],
        )
    )
    fig.update_yaxes(title="alpha")
    return _layout(fig, f"Agreement over time: {name}", 300)


def document_figures(
    doc: AgreementDocument, data: dict[str, Any] | None = None
) -> list[tuple[str, go.Figure]]:
    """Every figure of the document, titled, in reading order."""
    data = data or doc.to_dict()
    figs: list[tuple[str, go.Figure]] = [("reliability", reliability_bars(data))]
    for name, f in data["fields"].items():
        hm = kappa_heatmap(f, name)
        if hm is not None:
            figs.append((f"kappa-{name}", hm))
    for ev, by_field in doc.evaluators.items():
        for field, res in by_field.items():
            if res.pairs is not None and len(res.pairs):
                figs.append(
                    (
                        f"scatter-{ev}-{field}",
                        scatter(res.pairs, ev, field, res.correlations["pearson"].r),
                    )
                )
            b = data["evaluators"][ev][field].get("binary")
            if b and b["n"]:
                figs.append(
                    (
                        f"confusion-{ev}-{field}",
                        confusion(b, f"{ev} {field} vs human {b['against']} ({b['split']})"),
                    )
                )
            bias = data["evaluators"][ev][field].get("bias")
            if bias and bias.get("by_generator"):
                figs.append(
                    (f"bias-{ev}-{field}", bias_bars(bias, f"{ev} on {field}: bias by generator"))
                )
    for name, points in data.get("timeline", {}).items():
        if points:
            figs.append((f"timeline-{name}", timeline(points, name)))
    return figs
