"""The meta-evaluation's chart: each evaluator's correlation with people item by item
(segment level) against its correlation over systems (system level), with 95% CIs.

An evaluator far below the diagonal ranks systems worse than it scores items; far above,
it ranks systems well while scoring single items poorly (docs/metaeval.md).
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from agreement.measures import measures
from agreement.metaeval.rows import SECTION


def level_scatter(data: dict[str, Any], statistic: str = "pearson") -> go.Figure | None:
    """Segment vs system ``statistic`` per evaluator and annotator (None: nothing to draw)."""
    by = {(r["evaluator"], r["level"]): r for r in data["rows"] if r["statistic"] == statistic}
    who = list(dict.fromkeys(r["evaluator"] for r in data["rows"]))
    points = [
        (e, by[(e, "segment")], by[(e, "system")])
        for e in who
        if (e, "segment") in by
        and (e, "system") in by
        and by[(e, "segment")]["value"] is not None
        and by[(e, "system")]["value"] is not None
    ]
    if not points:
        return None
    header = next((m.view.header for m in measures(SECTION) if m.key == statistic), statistic)
    fig = go.Figure()
    for role, symbol in (("evaluator", "circle"), ("annotator", "diamond")):
        mine = [p for p in points if (p[1].get("role") or "evaluator") == role]
        if not mine:
            continue
        fig.add_trace(
            go.Scatter(
                x=[p[1]["value"] for p in mine],
                y=[p[2]["value"] for p in mine],
                mode="markers+text",
                text=[p[0] for p in mine],
                textposition="top center",
                marker=dict(symbol=symbol, size=10),
                name="evaluators" if role == "evaluator" else "annotators (ceiling)",
                error_x=_errors(mine, 1),
                error_y=_errors(mine, 2),
            )
        )
    fig.add_shape(type="line", x0=-1, y0=-1, x1=1, y1=1, line=dict(dash="dot", color="#999"))
    fig.update_layout(
        title=f"{header}: items (segment level) vs systems (system level)",
        xaxis_title=f"segment-level {header}",
        yaxis_title=f"system-level {header}",
        height=420,
        margin=dict(l=40, r=20, t=70, b=40),
    )
    return fig


def _errors(points: list[tuple[str, dict, dict]], k: int) -> dict[str, Any]:
    plus = [(p[k]["ci"][1] - p[k]["value"]) if p[k].get("ci") else 0 for p in points]
    minus = [(p[k]["value"] - p[k]["ci"][0]) if p[k].get("ci") else 0 for p in points]
    return dict(type="data", array=plus, arrayminus=minus, visible=True)
