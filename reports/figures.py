"""Plotly figures of an agreement document, shared by the agreement page and HTML reports."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from agreement import AgreementDocument
from agreement.evaluator import EvaluatorAgreement
from agreement.human import MIN_PAIR_OVERLAP
from agreement.measures import PAIRS, DetailEntry, fit_measure, read
from agreement.statistics import DASH, field_details, statistics
from agreement.views import evaluator_view, variables
from reports.bias_text import own_model_text

#: The template of figures in the HTML report; on the page Streamlit's own theme applies
#: (and building a figure with a named template costs ~50 ms of deep copies).
REPORT_TEMPLATE = "plotly_white"
GREY = "#d4d4d4"


def _layout(
    fig: go.Figure, title: str, height: int = 360, template: str | None = None
) -> go.Figure:
    layout: dict[str, Any] = dict(title=title, height=height, margin=dict(l=40, r=20, t=70, b=40))
    if template:
        layout["template"] = template
    fig.update_layout(**layout)
    return fig


def _num(value: float | None, digits: int = 2) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def _count(value: float | None) -> str:
    """A count, or a mean count over runs (1.5 stays 1.5)."""
    return DASH if value is None else f"{round(float(value), 2):g}"


def reliability_bars(doc: dict[str, Any], template: str | None = None) -> go.Figure:
    """The measures declared for the chart (alpha by level, Fleiss' kappa) per field, with
    95% bootstrap intervals; every bar is labelled with the n it rests on (pairable units
    for alpha, items for Fleiss)."""
    fig = go.Figure()
    rows = []
    charted = [m for m in statistics() if m.view.chart]
    for v in variables(doc):
        f = v.block
        unit = f.get("unit", "item")
        x = f"{v.name}<br>{f.get('n_items', 0)} {unit}s"
        for e in (e for m in charted for e in read(m, f)):
            rows.append((e.label, x, e.value, e.ci, e.n or 0))
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
            text=[f"n={r[4]}" for r in part],
            textposition="inside",
            insidetextanchor="start",
            customdata=[
                [r[4], _num(r[3][0]) if r[3] else DASH, _num(r[3][1]) if r[3] else DASH]
                for r in part
            ],
            hovertemplate=f"{stat} %{{y:.3f}} [%{{customdata[1]}}, %{{customdata[2]}}]"
            "<br>n = %{customdata[0]}<extra>%{x}</extra>",
        )
    fig.update_yaxes(range=[y_min, y_max])
    return _layout(
        fig,
        "Agreement among annotators (95% bootstrap CI)<br><sup>n on each bar: pairable "
        "units (alpha) or items with the modal number of ratings (Fleiss)</sup>",
        template=template,
    )


def chart_pairs(field: dict[str, Any]) -> DetailEntry | None:
    """The per-pair values a measure declares to be drawn as a heatmap (Cohen's kappa)."""
    return next((d for d in field_details(field, PAIRS) if d.detail.chart), None)


def low_overlap_pairs(field: dict[str, Any]) -> tuple[int, list[str]]:
    """The field's minimum overlap and its charted pairs that share fewer items."""
    d = chart_pairs(field)
    minimum = int(d.minimum if d is not None and d.minimum is not None else MIN_PAIR_OVERLAP)
    if d is None:
        return minimum, []
    if d.few is not None:
        return minimum, list(d.few)
    return minimum, sorted(p.pair for p in d.pairs if (p.n or 0) < minimum)


def pair_note(field: dict[str, Any]) -> str | None:
    """What the greyed cells of a pair heatmap mean, or None when none is greyed."""
    minimum, few = low_overlap_pairs(field)
    d = chart_pairs(field)
    if not few or d is None:
        return None
    n = {p.pair: p.n for p in d.pairs}
    pairs = ", ".join(f"{k.replace('|', ' & ')} (n={n.get(k, 0)})" for k in few)
    return (
        f"Greyed out: pairs sharing fewer than {minimum} items (project setting "
        f"`min_pair_overlap`), left out of the pair mean: {pairs}."
    )


def kappa_heatmap(
    field: dict[str, Any], name: str, template: str | None = None
) -> go.Figure | None:
    """The charted per-pair values of one field (Cohen's kappa) as a symmetric heatmap,
    each cell with its n; pairs sharing fewer than the minimum overlap are grey."""
    d = chart_pairs(field)
    if d is None:
        return None
    pairs = {p.pair: p.value for p in d.pairs}
    counts = {p.pair: p.n for p in d.pairs}
    minimum, few = low_overlap_pairs(field)
    people = sorted({p for key in pairs for p in key.split("|")})
    at = {p: i for i, p in enumerate(people)}
    k = len(people)
    z_ok, z_few = np.full((k, k), np.nan), np.full((k, k), np.nan)
    text_ok = np.full((k, k), "", dtype=object)
    text_few = np.full((k, k), "", dtype=object)
    for key, value in pairs.items():
        a, b = (at[p] for p in key.split("|"))
        label = f"{_num(value)}<br>n={counts.get(key, 0)}"
        grey = key in few
        for i, j in ((a, b), (b, a)):
            if grey:
                z_few[i, j], text_few[i, j] = 0.0, f"{label} (few)"
            else:
                z_ok[i, j], text_ok[i, j] = (np.nan if value is None else value), label
    common = dict(x=people, y=people, texttemplate="%{text}", hoverongaps=False)
    fig = go.Figure(
        go.Heatmap(z=z_ok, text=text_ok, zmin=-1, zmax=1, colorscale="RdBu", **common),
    )
    if few:
        fig.add_heatmap(
            z=z_few, text=text_few, colorscale=[[0, GREY], [1, GREY]], showscale=False, **common
        )
    unit = field.get("unit", "item")
    sub = f"n = shared {unit}s" + (
        f"; grey: fewer than {minimum}, left out of the pair mean" if few else ""
    )
    return _layout(fig, f"{d.detail.heading}: {name}<br><sup>{sub}</sup>", 400, template)


def scatter(
    pairs: pd.DataFrame,
    evaluator: str,
    field: str,
    r: float | None,
    template: str | None = None,
) -> go.Figure:
    """Evaluator score (mean over runs) vs mean human value per item, with the OLS fit;
    ``r`` is the value of the measure declared as the fit's (:func:`fit_measure`)."""
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
    m = fit_measure()
    rtxt = f"{m.view.header} = {m.view.format(r)}, " if m is not None and r is not None else ""
    return _layout(
        fig,
        f"{evaluator} vs humans on {field}<br><sup>{rtxt}n = {len(pairs)} items</sup>",
        template=template,
    )


def fit_value(res: EvaluatorAgreement) -> float | None:
    """The value of the declared fit measure (Pearson's r) of one evaluator, or None."""
    m = fit_measure()
    return res.row(m).value if m is not None else None


def confusion_title(binary: dict[str, Any], evaluator: str, field: str) -> str:
    """Title of a confusion matrix: what it compares, which split, n and any flags."""
    split = binary.get("split") or "all"
    where = "all items" if split == "all" else f"{split} split"
    sub = f"{where}, n = {binary['n']}"
    if binary.get("threshold") is not None and split != "all":
        sub += f", threshold {binary['threshold']:.2f}"
    flags = binary.get("flags") or {}
    if flags:
        sub += "<br>⚠ " + "; ".join(FLAG_NAMES.get(k, k.replace("_", " ")) for k in flags)
    return f"{evaluator} {field} vs human {binary.get('against')}<br><sup>{sub}</sup>"


#: Short names of the degenerate-result flags of a calibrated comparison.
FLAG_NAMES = {
    "small_test": "test split too small",
    "threshold_at_edge": "threshold at the grid's edge",
    "one_decision": "one decision for every item",
    "one_reference_label": "one reference label for every item",
}


def confusion(
    binary: dict[str, Any], evaluator: str, field: str, template: str | None = None
) -> go.Figure:
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
    return _layout(fig, confusion_title(binary, evaluator, field), 300, template)


def bias_explanation(bias: dict[str, Any]) -> str | None:
    """Why a by-generator bias chart would say nothing about self-preference (no item of
    the judge's own model, or no judge model), or None when it can be drawn."""
    if not bias.get("by_generator"):
        return bias.get("reason") or "no item with both an evaluator score and human scores"
    if bias.get("n_own", 0) == 0 or bias.get("n_other", 0) == 0:
        return bias.get("fisher_reason") or "no item generated by the judge's own model"
    return None


def bias_caption(bias: dict[str, Any], said: str | None = None) -> str:
    """Own-model counts first (FinGrAct's headline), then all items' over- and
    under-estimation counts (items; means over runs), apart from the test. ``said``: a
    reason the reader was just given (why there is no chart): not repeated here."""
    n, runs = bias.get("n", 0), bias.get("n_runs", 0)
    per = f" (mean of {runs} runs)" if runs and runs > 1 else ""
    own = own_model_text(bias)
    parts = [
        *([] if said and said in own else [own]),
        f"all items: over-estimated on {_count(bias.get('over'))} of {n}, under-estimated "
        f"on {_count(bias.get('under'))} of {n}{per}",
    ]
    if bias.get("n_other") and bias.get("n_own"):  # with no own item, other items are all
        parts.append(
            f"other models' items: over on {_count(bias.get('over_other'))} of {bias['n_other']}"
        )
    p = bias.get("fisher_p")
    parts.append(
        f"Fisher exact p = {p:.3g}"
        if p is not None
        else f"Fisher test: {DASH}"
        if said and bias.get("fisher_reason") == said
        else f"Fisher test: {DASH} ({bias.get('fisher_reason') or 'undefined'})"
    )
    return " · ".join(parts)


def bias_bars(bias: dict[str, Any], title: str, template: str | None = None) -> go.Figure | None:
    """Shares of over- and under-estimated items (gap >= 2 on 0-5) per item generator; the
    counts go in the hover text. None when :func:`bias_explanation` says why not."""
    if bias_explanation(bias) is not None:
        return None
    gens = bias["by_generator"]
    names = list(gens)
    fig = go.Figure()
    for side in ("over", "under"):
        fig.add_bar(
            name=side,
            x=[f"{g}<br>n={gens[g]['n']}" for g in names],
            y=[gens[g][side] / max(gens[g]["n"], 1) for g in names],
            customdata=[[gens[g][side], gens[g]["n"]] for g in names],
            hovertemplate=f"{side}-estimated on %{{customdata[0]}} of %{{customdata[1]}} "
            "items (%{y:.0%})<extra>%{x}</extra>",
        )
    fig.update_yaxes(title="share of items", rangemode="tozero", tickformat=".0%")
    return _layout(fig, title, template=template)


#: Labels whose times span less than this were loaded or imported together.
MIN_HISTORY = pd.Timedelta(minutes=1)


def has_history(points: list[dict[str, Any]]) -> bool:
    """True when the labels were given over a minute or more: a timeline of labels that
    were all loaded at once (one moment, or a script's fraction of a second) is a point
    or two on a millisecond axis, not a history."""
    times = [pd.Timestamp(p["at"]) for p in points]
    return bool(times) and max(times) - min(times) >= MIN_HISTORY


def timeline(points: list[dict[str, Any]], name: str, template: str | None = None) -> go.Figure:
    """Alpha as labels accumulate."""
    fig = go.Figure(
        go.Scatter(
            x=[p["at"] for p in points],
            y=[p["alpha"] for p in points],
            mode="lines+markers",
            text=[f"{p['n_ratings']} ratings, {p.get('n_pairable', 0)} pairable" for p in points],
        )
    )
    fig.update_yaxes(title="alpha")
    n = points[-1]["n_ratings"] if points else 0
    return _layout(fig, f"Agreement over time: {name} (n = {n} ratings by now)", 300, template)


def ranking_charts(f: dict[str, Any], name: str, template: str | None = None) -> list[go.Figure]:
    """One chart per declared ranking measure present in field block ``f`` (the
    Bradley-Terry strengths, or those under the prior, and the win rates): a bar per
    system in the stored order, strongest on top, with its 95% interval and n."""
    figs = []
    for m in (m for m in statistics() if m.view.ranking):
        entries = [e for e in read(m, f) if e.value is not None]
        if not entries:
            continue
        ci = [e.ci or (e.value, e.value) for e in entries]
        fig = go.Figure(
            go.Bar(
                x=[e.value for e in entries],
                y=[e.level for e in entries],
                orientation="h",
                error_x=dict(
                    type="data",
                    array=[c[1] - e.value for c, e in zip(ci, entries, strict=True)],
                    arrayminus=[e.value - c[0] for c, e in zip(ci, entries, strict=True)],
                ),
                text=[f"n={e.n}" for e in entries],
                textposition="inside",
                insidetextanchor="start",
                hovertemplate="%{y}: %{x:.3f}<br>%{text}<extra></extra>",
            )
        )
        fig.update_yaxes(autorange="reversed")
        fig.update_xaxes(title=m.view.header)
        figs.append(_layout(fig, f"{name}: {m.view.name}", 120 + 36 * len(entries), template))
    return figs


def document_figures(
    doc: AgreementDocument, data: dict[str, Any] | None = None, template: str = REPORT_TEMPLATE
) -> list[tuple[str, go.Figure]]:
    """Every figure of the document, titled, in reading order."""
    data = data or doc.to_dict()
    figs: list[tuple[str, go.Figure]] = [("reliability", reliability_bars(data, template))]
    for v in variables(data, derived=False):
        name, f = v.name, v.block
        hm = kappa_heatmap(f, name, template)
        if hm is not None:
            figs.append((f"kappa-{name}", hm))
        for i, fig in enumerate(ranking_charts(f, name, template)):
            figs.append((f"ranking-{name}-{i}", fig))
    for ev, by_field in doc.evaluators.items():
        for field, res in by_field.items():
            if res.pairs is not None and len(res.pairs):
                r = fit_value(res)
                figs.append((f"scatter-{ev}-{field}", scatter(res.pairs, ev, field, r, template)))
            view = evaluator_view(data, ev, field)
            b = view.binary if view else None
            if b and b["n"]:
                figs.append((f"confusion-{ev}-{field}", confusion(b, ev, field, template)))
            bias = view.bias if view else None
            fig = bias and bias_bars(bias, f"{ev} on {field}: bias by generator", template)
            if fig is not None and bias:
                figs.append((f"bias-{ev}-{field}", fig))
    for name, points in data.get("timeline", {}).items():
        if has_history(points):
            figs.append((f"timeline-{name}", timeline(points, name, template)))
    return figs


def reliability_diagram(label: str, calibration: dict[str, Any]) -> go.Figure | None:
    """A judge version's reliability diagram: share of positive human decisions against
    the mean probability per bin (binary), or, for a label judge, accuracy against its
    mean confidence in its own answer."""
    bins = calibration.get("bins") or []
    if not bins:
        return None
    own = "confidence" in bins[0]
    xs = [b["confidence"] if own else b["mean_probability"] for b in bins]
    ys = [b["accuracy"] if own else b["share_positive"] for b in bins]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect", line={"dash": "dot"})
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers+lines",
            name=label,
            text=[f"n {b['n']}" for b in bins],
            hovertemplate="p %{x:.2f} → %{y:.2f} (%{text})<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"{label}: reliability diagram (ECE {calibration['ece']:.3f}, n {calibration['n']})",
        xaxis_title="judge's confidence in its answer" if own else "judge probability",
        yaxis_title="share correct" if own else "share the humans call positive",
        height=360,
        margin={"t": 50, "b": 40},
    )
    return fig
