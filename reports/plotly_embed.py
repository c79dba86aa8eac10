"""Figures in the self-contained HTML report: plotly.js embedded once, each figure as data.

The report embeds the vendored cartesian bundle (``reports/vendor``, fetched by
``scripts/vendor_plotly.py``) gzipped and base64-encoded; a small loader inflates it with
the browser's ``DecompressionStream``, runs it, then draws every figure from its JSON.
Each figure keeps only the template entries of the trace types it draws (the full
template repeats defaults for every trace type plotly knows).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from functools import cache
from pathlib import Path

import plotly.graph_objects as go

BUNDLE = Path(__file__).with_name("vendor") / "plotly-cartesian.min.js"
#: The trace types the cartesian bundle can draw (a figure with another type is refused).
BUNDLE_TRACES = frozenset(
    {"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour"}
    | {"image", "pie", "scatter", "scatterternary", "violin"}
)
FIGURE_CLASS = "report-figure"
CONFIG = {"responsive": True, "displaylogo": False}

_LOADER = """<script>
(async () => {
  const packed = document.getElementById("plotly-bundle").textContent.trim();
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const code = await new Response(stream).text();
  const run = document.createElement("script");
  run.textContent = code;
  document.head.appendChild(run);
  for (const holder of document.querySelectorAll("script[data-figure]")) {
    const fig = JSON.parse(holder.textContent);
    Plotly.newPlot(holder.dataset.figure, fig.data, fig.layout, CONFIG);
  }
})();
</script>"""


@cache
def _packed_bundle() -> str:
    # mtime=0: the same bundle gives the same bytes, so reports are reproducible
    return base64.b64encode(gzip.compress(BUNDLE.read_bytes(), 9, mtime=0)).decode("ascii")


def plotly_loader() -> str:
    """The packed plotly.js and the script that draws the figures (put it in once, last)."""
    return (
        f'<script type="application/octet-stream" id="plotly-bundle">{_packed_bundle()}</script>'
        + _LOADER.replace("CONFIG", json.dumps(CONFIG))
    )


def _slim(fig: go.Figure) -> dict:
    spec = json.loads(fig.to_json())
    used = {t.get("type", "scatter") for t in spec.get("data", [])}
    missing = used - BUNDLE_TRACES
    if missing:
        raise ValueError(f"the report's plotly bundle cannot draw {sorted(missing)}")
    template = spec.get("layout", {}).get("template")
    if template and "data" in template:
        template["data"] = {k: v for k, v in template["data"].items() if k in used}
    return spec


def figure_html(fig: go.Figure, figure_id: str) -> str:
    """One figure: an empty div and its data, drawn by :func:`plotly_loader`'s script."""
    spec = json.dumps(_slim(fig), separators=(",", ":")).replace("</", "<\\/")
    fid = html.escape(figure_id, quote=True)
    height = fig.layout.height or 450
    return (
        f'<div id="{fid}" class="{FIGURE_CLASS}" style="height:{int(height)}px"></div>'
        f'<script type="application/json" data-figure="{fid}">{spec}</script>'
    )
