"""The estimates side by side: one row per system, one marker per method, with its CI."""

from __future__ import annotations

import plotly.graph_objects as go

from estimates.table import METHOD_LABELS, EstimateTable

COLOURS = {"human": "#4c78a8", "judge": "#e45756", "ppi": "#54a24b", "corrected": "#b279a2"}


def estimates_chart(t: EstimateTable) -> go.Figure:
    """A horizontal dot plot with error bars; methods without an estimate are left out."""
    fig = go.Figure()
    for offset, key in enumerate(METHOD_LABELS):
        xs, ys, lo, hi = [], [], [], []
        for g in t.groups:
            e = g.methods().get(key)
            if e is None or e.estimate is None or e.ci is None:
                continue
            xs.append(e.estimate)
            ys.append(g.group)
            lo.append(e.estimate - e.ci[0])
            hi.append(e.ci[1] - e.estimate)
        if not xs:
            continue
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                name=METHOD_LABELS[key],
                marker={"color": COLOURS[key], "size": 10},
                error_x={"type": "data", "symmetric": False, "array": hi, "arrayminus": lo},
                offsetgroup=str(offset),
            )
        )
    fig.update_layout(
        scattermode="group",
        xaxis_title=f"{t.field}: mean with 95% CI",
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "y": -0.2},
        height=140 + 70 * len(t.groups),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
    )
    return fig
