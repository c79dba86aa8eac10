"""Load the browser's chart library while the page is idle, before a page draws a chart.

Streamlit's frontend fetches its Plotly chunk (about 4.7 MB of JavaScript) the first
time a page draws a Plotly chart; parsing and running it was about 1.3 s of the first
visit to the Agreement page on a 2-core machine. The script below imports that same
chunk when the browser is idle, so the module is ready (the browser keeps one instance
per URL) when the Agreement, Alignment or Audit page asks for it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import streamlit as st

#: Runs once per browser tab; resolves the chunk next to Streamlit's own entry script,
#: so it also works under a ``server.baseUrlPath``.
SCRIPT = """<script>
(() => {
  if (window.__workbenchChartsPreloaded) return;
  window.__workbenchChartsPreloaded = true;
  const entry = document.querySelector('script[type="module"][src*="/static/js/index."]');
  if (!entry) return;
  const load = () => import(new URL(%s, entry.src).href).catch(() => {});
  (window.requestIdleCallback || ((f) => setTimeout(f, 500)))(load, {timeout: 3000});
})();
</script>"""


@cache
def plotly_chunk() -> str | None:
    """The file name of Streamlit's Plotly chunk (it carries a build hash), or None when
    this Streamlit build has no single one."""
    js = Path(st.__file__).parent / "static" / "static" / "js"
    found = sorted(p.name for p in js.glob("PlotlyChart.*.js"))
    return found[0] if len(found) == 1 else None


@cache
def script_body() -> str | None:
    """The ``st.html`` body that preloads the chunk (built once per process), or None."""
    name = plotly_chunk()
    return None if name is None else SCRIPT % json.dumps(name)


def preload_charts() -> None:
    """Ask the browser to load the Plotly chunk when idle (nothing is drawn).

    Emitted on every run, on purpose. Once per session would keep the effect (the
    script runs in the page itself, and the module it imported stays loaded when the
    element goes), but an element left out of a rerun is removed, and this one, empty
    as it is, holds a 1rem gap in the sidebar: everything below it (the Agreement
    page's resamples slider, Go to item ...) would move up on the second run. Re-emitted
    with the same body, the browser keeps the element and does not run the script
    again; what a run pays is about 45 us and a 0.4 kB message.
    """
    body = script_body()
    if body is not None:
        st.html(body, unsafe_allow_javascript=True)
