"""Plotly figures of the alignment view (no streamlit): the headline figure by version
and a judge version's reliability diagram (shared with the reports)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from reports.figures import reliability_diagram

__all__ = ["headline_chart", "reliability_diagram"]


def headline_chart(doc: dict[str, Any]) -> go.Figure:
    """The headline figure (kappa or a correlation) of every version with its 95% CI;
    one line per evaluator, joining its versions in order."""
    fig = go.Figure()
    by_evaluator: dict[str, list[dict[str, Any]]] = {}
    for r in doc["versions"]:
        if r["headline"]["value"] is not None:
            by_evaluator.setdefault(r["evaluator"], []).append(r)
    for evaluator, rows in by_evaluator.items():
        values = [r["headline"]["value"] for r in rows]
        ci = [r["headline"]["ci"] or [v, v] for r, v in zip(rows, values, strict=True)]
        fig.add_trace(
            go.Scatter(
                x=[r["label"] for r in rows],
                y=values,
                name=evaluator,
                mode="markers+lines",
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [c[1] - v for c, v in zip(ci, values, strict=True)],
                    "arrayminus": [v - c[0] for c, v in zip(ci, values, strict=True)],
                },
                hovertemplate="%{x}: %{y:.3f}<extra></extra>",
            )
        )
    from alignment.frames import headline_name

    name = headline_name(doc["headline"])
    fig.update_layout(
        title=f"{name} with the humans on {doc['field']}, by version",
        yaxis_title=name,
        xaxis_title="version",
        height=360,
        margin={"t": 50, "b": 40},
    )
    return fig
