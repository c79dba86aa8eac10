"""AppTest: the Agreement page and the live side panel on the demo projects."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store
from demo.loading import load_demo
from tests.support.apptest import panel_caption, rerun_until

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo_url(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store with the demo projects, as the app's database."""
    store = Store(sqlite_url)
    load_demo(store)
    store.close()
    monkeypatch.setenv("WORKBENCH_DB_URL", sqlite_url)
    from ui.context import get_store

    get_store.clear()
    return sqlite_url


@pytest.fixture
def demo_app(demo_url: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["project"] = "demo-intent-resolution"
    return at


def test_side_panel_shows_alpha_and_evaluator_correlation_with_n(
    demo_url: str, demo_app: AppTest
) -> None:
    from ui.agreement_panel import LIVE

    # The panel's first draw does not wait for its figures (AppTest's reruns of app.py
    # lose the sidebar): the first session starts them, a second one finds them.
    demo_app.run()
    key = (demo_url, "demo-intent-resolution", "resolution", "majority")
    for _ in range(600):
        if LIVE.has(key):
            break
        time.sleep(0.1)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["project"] = "demo-intent-resolution"
    at.run()
    assert not at.exception
    sidebar_text = " ".join(str(m.value) for m in at.sidebar.markdown) + " ".join(
        str(c.value) for c in at.sidebar.caption
    )
    labels = [m.label for m in at.sidebar.metric]
    assert any("α" in label for label in labels), labels
    assert "intent-judge (demo)" in sidebar_text
    assert "n 5" in sidebar_text or "n=5" in sidebar_text or " 5 " in sidebar_text
    # the bias counts come with the number of items they are counted over (the demo
    # judge is within 2 points of the humans on all 5 items)
    # (the own-model counts come first, FinGrAct's headline)
    assert "bias: own model: " in sidebar_text, sidebar_text
    assert "; all: over 0 / under 0 of n 5" in sidebar_text, sidebar_text


def _panel_script() -> None:
    from ui.agreement_panel import agreement_panel

    agreement_panel("demo-intent-resolution")


def _captions(at: AppTest) -> str:
    return " ".join(str(c.value) for c in at.caption)


def _save_late_label(url: str) -> None:
    store = Store(url)
    try:
        before = store.data_version("demo-intent-resolution")
        store.save_label(
            "demo-intent-resolution",
            "cake",
            "late-annotator",
            "resolution",
            0.6,
            status="submitted",
        )
        assert store.data_version("demo-intent-resolution") != before
    finally:
        store.close()


def _run_until(at: AppTest, text: str, tries: int = 50) -> None:
    """Rerun (as the panel's tick does) until ``text`` shows: the figures of a new data
    version are computed in the background."""
    for _ in range(tries):
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if text in _captions(at):
            return
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never shown: {_captions(at)}")


def test_side_panel_summary_is_recomputed_only_when_the_data_version_changes(
    demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel's figures are computed once per (project, data version, field): a rerun
    with the same data reuses them, a newly saved label (a new data version) recomputes
    them."""
    import ui.agreement_panel as panel

    calls: list[str] = []
    real = panel.panel_summary

    def counting(store, project, field=None, **options):
        calls.append(project)
        return real(store, project, field, **options)

    monkeypatch.setattr(panel, "panel_summary", counting)
    panel.LIVE.clear()
    at = AppTest.from_function(_panel_script, default_timeout=120).run()
    rerun_until(at, panel_caption("15 ratings"))
    assert calls == ["demo-intent-resolution"]
    at.run()
    assert not at.exception
    assert len(calls) == 1, "same data version: the computed summary is reused"
    assert "15 ratings" in _captions(at)

    _save_late_label(demo_url)
    _run_until(at, "16 ratings")
    assert len(calls) == 2, "a new label changes the data version: recomputed once"
    at.run()
    assert len(calls) == 2 and "16 ratings" in _captions(at)
    assert panel.UPDATING not in _captions(at)


def test_the_panels_first_draw_does_not_wait_and_ticks_every_second_until_its_figures(
    demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh server's Home does not wait for the panel's figures (issue #47): the first
    draw says they are being computed, without waiting, in the panel that ticks every
    second; once they are there the page's next run draws the 15 s one."""
    import ui.agreement_panel as panel

    release = threading.Event()
    real_summary = panel.panel_summary

    def held(store, project, field=None, **options):
        assert release.wait(60)
        return real_summary(store, project, field, **options)

    waits: list[float] = []
    real_get = panel.LIVE.get

    def get(key, version, compute, wait=0.0):
        waits.append(wait)
        return real_get(key, version, compute, wait)

    drawn: list[str] = []
    for name in ("_panel", "_starting_panel", "_live_panel"):
        fragment = getattr(panel, name)
        monkeypatch.setattr(
            panel, name, lambda p, _n=name, _f=fragment: (drawn.append(_n), _f(p))[1]
        )
    monkeypatch.setattr(panel, "panel_summary", held)
    monkeypatch.setattr(panel.LIVE, "get", get)
    panel.LIVE.clear()
    at = AppTest.from_function(_panel_script, default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    assert waits == [0.0] and drawn == ["_starting_panel"]
    assert "computing the figures" in _captions(at)
    assert panel._starting_panel is not panel._panel
    release.set()
    rerun_until(at, panel_caption("15 ratings"))
    at.run()
    assert drawn[-1] == "_panel" and waits[-1] == panel.WAIT_S


def _panel_with_first_field_script() -> None:
    """The panel after the Agreement page picked the project's first field."""
    import streamlit as st

    from ui.agreement_panel import FIELD_KEY, agreement_panel

    if st.session_state.get("picked"):
        st.session_state[FIELD_KEY] = "resolution"
    agreement_panel("demo-intent-resolution")


def test_side_panel_computes_once_for_home_and_the_agreement_pages_first_field(
    demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Home draws the panel with no field picked (the first one shown) and the Agreement
    page then picks that first field: the same figures, computed once, not again during
    the page's first visit."""
    import ui.agreement_panel as panel

    calls: list[str | None] = []
    real = panel.panel_summary

    def counting(store, project, field=None, **options):
        calls.append(field)
        return real(store, project, field, **options)

    monkeypatch.setattr(panel, "panel_summary", counting)
    panel.LIVE.clear()
    at = AppTest.from_function(_panel_with_first_field_script, default_timeout=120).run()
    rerun_until(at, panel_caption("15 ratings"))
    at.session_state["picked"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[panel.FIELD_KEY] == "resolution"
    assert "15 ratings" in _captions(at)
    assert panel.UPDATING not in _captions(at)
    assert calls == ["resolution"]


def _hold_after_first(panel, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], threading.Event]:
    """Make the panel's computation after the first wait for the returned event; returns
    the list of computed projects and that event."""
    real = panel.panel_summary
    release = threading.Event()
    calls: list[str] = []

    def slow_after_first(store, project, field=None, **options):
        calls.append(project)
        if len(calls) > 1:
            assert release.wait(60)
        return real(store, project, field, **options)

    monkeypatch.setattr(panel, "panel_summary", slow_after_first)
    return calls, release


def test_side_panel_keeps_the_last_figures_marked_updating_while_new_ones_compute(
    demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a submit the panel does not wait for the new figures: a tick draws the last
    ones with an "updating" mark, and the next tick after they are computed draws them."""
    import ui.agreement_panel as panel

    calls, release = _hold_after_first(panel, monkeypatch)
    monkeypatch.setattr(panel, "WAIT_S", 0.05)
    panel.LIVE.clear()
    at = AppTest.from_function(_panel_script, default_timeout=120).run()
    rerun_until(at, panel_caption("15 ratings"))
    assert panel.UPDATING not in _captions(at)

    _save_late_label(demo_url)
    started = time.perf_counter()
    at.run()
    took = time.perf_counter() - started
    assert not at.exception, [e.value for e in at.exception]
    assert "15 ratings" in _captions(at), "the last figures stay while new ones compute"
    assert _captions(at).count(panel.UPDATING) == 1
    assert took < 10, took  # the tick did not wait for the (held) computation
    at.run()  # a tick while it still runs starts no second computation
    assert len(calls) == 2

    release.set()
    _run_until(at, "16 ratings")
    assert panel.UPDATING not in _captions(at)
    assert len(calls) == 2


def _live_panel_script() -> None:
    from ui.agreement_panel import agreement_panel

    agreement_panel("demo-intent-resolution", live=True)


def test_the_clients_refresh_press_redraws_the_live_panel_at_once_marked_updating(
    demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The annotation client presses the live panel's hidden refresh button once a submit
    is saved: that redraw does not wait for the new figures (however long a tick would),
    it draws the last ones marked updating; the next tick after they are ready draws them."""
    import ui.agreement_panel as panel
    from ui.panel_refresh import KEY_PREFIX

    calls, release = _hold_after_first(panel, monkeypatch)
    monkeypatch.setattr(panel, "WAIT_S", 60.0)  # a tick would wait for the held figures
    panel.LIVE.clear()
    at = AppTest.from_function(_live_panel_script, default_timeout=120).run()
    rerun_until(at, panel_caption("15 ratings"))
    refresh = at.button(key=f"{KEY_PREFIX}_agreement")

    _save_late_label(demo_url)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (refresh.click().run(), done.set()), daemon=True)
    worker.start()
    assert done.wait(30), "the pressed redraw waited for the new figures"
    assert not at.exception, [e.value for e in at.exception]
    assert "15 ratings" in _captions(at) and _captions(at).count(panel.UPDATING) == 1
    deadline = time.monotonic() + 30  # the new figures are being computed meanwhile
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(calls) == 2

    release.set()
    monkeypatch.setattr(panel, "WAIT_S", 0.05)
    _run_until(at, "16 ratings")
    assert panel.UPDATING not in _captions(at)


def test_agreement_page_shows_the_figures_krippendorff_and_scipy_give(demo_app: AppTest) -> None:
    """Values cross-checked by computing them directly with krippendorff and scipy:
    resolution labels of the three demo annotators, and the demo judge's scores."""
    at = demo_app.run()
    at.switch_page("pages/agreement.py").run()
    assert not at.exception
    (humans,) = [d.value for d in at.dataframe if "alpha nominal" in d.value.columns]
    row = humans.iloc[0]
    assert row["field"] == "resolution" and row["ratings"] == 15
    assert row["alpha nominal"] == pytest.approx(0.291139240506329)
    assert row["alpha ordinal"] == pytest.approx(0.8097724230254351)
    assert row["alpha interval"] == pytest.approx(0.9381898454746137)
    # only the open tab is built: the evaluators' table waits for its tab
    assert not [d for d in at.dataframe if {"statistic", "r"} <= set(d.value.columns)]
    assert len(at.get("plotly_chart")) == 2  # reliability bars and the kappa heatmap
    at.session_state["agreement_tab"] = "Evaluators vs humans"
    at.run()
    assert not at.exception
    assert not [d for d in at.dataframe if "alpha nominal" in d.value.columns]
    (versus,) = [d.value for d in at.dataframe if {"statistic", "r"} <= set(d.value.columns)]
    r = dict(zip(versus["statistic"], versus["r"], strict=True))
    # named as the Alignment page names them, not by their keys (pearson, kendall)
    assert r["Pearson r"] == pytest.approx(0.9939917658034135)
    assert r["Spearman"] == pytest.approx(0.9176629354822471)
    assert r["Kendall tau-b"] == pytest.approx(0.8819171036881969)
    assert set(versus["n"]) == {5}
    # p as four decimals, and never 0.0000 for a tiny one
    assert all(p == "< 0.0001" or len(p.split(".")[1]) == 4 for p in versus["p"]), versus
    from ui.agreement_tables import p_text

    assert (p_text(3e-9), p_text(0.01234), p_text(None)) == ("< 0.0001", "0.0123", None)


def test_agreement_page_offers_the_report_as_html_markdown_json_and_reliability_csvs(
    demo_app: AppTest, demo_url: str
) -> None:
    """Building the report offers it in every format, each with the same figures as the
    command line's report, and the reliability matrix of each field as a CSV beside it."""
    from reports import build_report, render_report

    project = "demo-intent-resolution"
    at = demo_app.run()
    at.switch_page("pages/agreement.py").run()
    assert not at.exception
    at.session_state["agreement_tab"] = "Report"
    at.run()
    assert not [b for b in at.download_button if b.key.startswith("agreement_report")]
    at.multiselect(key="agreement_report_items").set_value(["cake"]).run()
    at.button(key="agreement_report_build").click().run()
    assert not at.exception, [e.value for e in at.exception]

    built = at.session_state["agreement_report"]
    assert (built["project"], built["items"]) == (project, ("cake",))
    files = {f["format"]: f for f in built["reports"]}
    assert list(files) == ["html", "md", "json"]
    assert {f: (v["file_name"], v["mime"]) for f, v in files.items()} == {
        "html": (f"agreement-{project}.html", "text/html"),
        "md": (f"agreement-{project}.md", "text/markdown"),
        "json": (f"agreement-{project}.json", "application/json"),
    }
    (matrix,) = built["matrices"]
    csv_name = f"agreement-{project}.reliability_resolution.csv"
    assert (matrix["field"], matrix["file_name"], matrix["mime"]) == (
        "resolution",
        csv_name,
        "text/csv",
    )
    # one download button per format and per field's matrix
    buttons = {b.key: b.label for b in at.download_button if b.key.startswith("agreement_report")}
    assert buttons == {
        "agreement_report_html": "Report (HTML)",
        "agreement_report_md": "Report (Markdown)",
        "agreement_report_json": "Report (JSON)",
        "agreement_report_csv_resolution": "resolution (CSV)",
    }

    html = files["html"]["data"].decode("utf-8")
    md = files["md"]["data"].decode("utf-8")
    doc = json.loads(files["json"]["data"])
    assert html.lstrip().lower().startswith("<!doctype html") and "<h3>cake</h3>" in html
    assert md.startswith("#") and "cake" in md
    # the HTML and Markdown name the CSV as it is offered for download
    assert csv_name in html and csv_name in md
    assert doc["provenance"]["project"] == project
    assert [d["item_id"] for d in doc["drilldown"]] == ["cake"]
    alpha = doc["agreement"]["fields"]["resolution"]["krippendorff_alpha"]
    assert alpha["ordinal"] == pytest.approx(0.8097724230254351)

    # Same content as the command line's report (same resamples and seed).
    store = Store(demo_url)
    try:
        from alignment.report_section import alignment_for_report

        expected = build_report(
            store, project, item_ids=["cake"], alignment=alignment_for_report(store, project)
        )
    finally:
        store.close()
    assert doc["agreement"] == json.loads(render_report(expected, "json"))["agreement"]
    assert _numbers(md) == _numbers(render_report(expected, "md", {"resolution": csv_name}))
    assert matrix["data"].decode("utf-8") == expected.matrices["resolution"].to_csv()
    frame = pd.read_csv(io.BytesIO(matrix["data"]), index_col="item_id")
    assert sorted(frame.index) == list(frame.index)  # items in item_id order
    assert frame.shape == (5, 3) and int(frame.notna().sum().sum()) == 15
    assert frame.loc["cake", "demo-annotator-3"] == pytest.approx(0.8)


def _numbers(text: str) -> list[str]:
    """The decimal figures of a rendered report, in order (timestamps left out)."""
    import re

    body = re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.+Z-]*", "", text)
    return re.findall(r"-?\d+\.\d+", body)


def test_a_draft_leaves_the_data_version_alone_and_a_submit_changes_it(demo_url: str) -> None:
    """Every click on Annotate saves a draft; only submitted labels reach the figures, so
    only they may throw away the cached agreement documents."""
    from studies import assignments as asg

    store = Store(demo_url)
    try:
        project = "demo-intent-resolution"
        before = store.data_version(project)
        store.save_label(project, "cake", "late-annotator", "resolution", 0.6)  # a draft
        store.save_label(project, "cake", "late-annotator", "resolution", 0.8)  # changed
        assert store.data_version(project) == before
        asg.submit(store, project, "cake", "late-annotator")
        after = store.data_version(project)
        assert after != before
        store.save_label(project, "cake", "late-annotator", "resolution", 0.4, status="submitted")
        assert store.data_version(project) != after  # a submitted label edited
    finally:
        store.close()
