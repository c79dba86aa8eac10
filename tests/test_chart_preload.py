"""The side panel has the browser load Streamlit's Plotly chunk while idle (#16 point 5):
the first visit to the Agreement page then does not wait for 4.7 MB of JavaScript."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from demo.loading import load_demo
from ui.chart_preload import plotly_chunk

ROOT = Path(__file__).resolve().parent.parent
JS = Path(st.__file__).parent / "static" / "static" / "js"


def test_the_chunk_is_the_one_streamlit_loads_for_plotly_charts() -> None:
    name = plotly_chunk()
    assert name is not None and name.startswith("PlotlyChart.") and name.endswith(".js")
    assert (JS / name).stat().st_size > 1_000_000  # plotly.js itself, not a stub
    entry = next(JS.glob("index.*.js")).read_text(encoding="utf-8")
    assert f"./{name}" in entry  # the frontend's lazy import of the chart element


def _preload_scripts(at: AppTest) -> list[str]:
    return [
        e.proto.body for e in at.sidebar.get("html") if "__workbenchChartsPreloaded" in e.proto.body
    ]


@pytest.fixture
def demo_app(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    monkeypatch.setenv("WORKBENCH_DB_URL", sqlite_url)
    from ui.context import get_store

    get_store.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["project"] = "demo-intent-match"
    return at


def test_the_side_panel_preloads_the_chunk_once_per_run(demo_app: AppTest) -> None:
    at = demo_app.run()
    assert not at.exception, [e.value for e in at.exception]
    scripts = _preload_scripts(at)
    assert len(scripts) == 1
    assert f'"{plotly_chunk()}"' in scripts[0]
    assert at.sidebar.get("html")[0].proto.unsafe_allow_javascript


def _sidebar_preload() -> None:
    import streamlit as st

    from ui.chart_preload import preload_charts

    with st.sidebar:
        preload_charts()
        st.button("below")


def test_every_run_re_emits_the_same_script() -> None:
    """Left out of a rerun, the element would be removed and what sits below it in the
    sidebar would move up; re-emitted byte for byte, the browser keeps the element and
    does not run the script again."""
    from ui.chart_preload import script_body

    at = AppTest.from_function(_sidebar_preload, default_timeout=60)
    first = _preload_scripts(at.run())
    again = _preload_scripts(at.button[0].click().run())
    assert first == again == [script_body()]
    assert script_body() is script_body()  # built once per process
