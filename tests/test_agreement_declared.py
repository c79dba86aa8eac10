"""A statistic is one declaration (issue 12, point 2): declared at test time, it reaches
the JSON document, the HTML and Markdown reports, the Agreement page and the side panel.
And what those show (issue 16, points 3-4; issue 14, point 10): CIs in the report's
annotator table formatted like the estimates, no literal ``None`` in any table, and the
panel saying why Fleiss' n changed."""

from __future__ import annotations

import contextlib
import json
import re
import time

import pandas as pd
import pytest
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from agreement.builtin_measures.evaluator_vs_people import SCORED
from agreement.measures import BIAS, BINARY, EVALUATOR, Measure, MeasureView
from agreement.results import Stat
from agreement.statistics import ALL, StatContext, declared
from annotation_store import Store
from commands import main
from reports import build_report, render_report
from tests.support.apptest import open_app, panel_caption, rerun_until

PROJECT = "demo-intent-resolution"


def _toy(ctx: StatContext) -> Stat:
    """A made-up statistic: the share of pairable units, with a fixed interval."""
    r = ctx.ratings
    return Stat(0.4242 * r.pairable.mean(), int(r.pairable.sum()), None, (0.31313, 0.51515))


TOY = Measure(
    "toy_share",
    MeasureView(
        "Toy share",
        "Toy share of pairable units",
        summary=True,
        panel=True,
        method="a statistic declared by a test",
    ),
    ALL,
    compute=_toy,
    ci_key="toy_share_ci",
    n_key="toy_share_n_items",
)


def _shown(frame_element) -> pd.DataFrame:
    """What a table shows: the Styler's display values when it has them."""
    styler = frame_element.proto.arrow_data.styler
    if styler.display_values:
        return convert_arrow_bytes_to_pandas_df(styler.display_values)
    return frame_element.value


def _cells(at: AppTest) -> list[str]:
    """Every cell as the browser draws it: a missing value is a grey "None" there even
    when a Styler formats it, so the frame's own values are read."""
    return [str(v) for d in at.dataframe for v in d.value.to_numpy().ravel()]


def test_a_statistic_declared_once_reaches_json_reports_page_and_panel(
    demo: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with declared(TOY):
        assert main(["--db", demo, "agreement", PROJECT, "--json", "--resamples", "0"]) == 0
        f = json.loads(capsys.readouterr().out)["fields"]["resolution"]
        assert f["toy_share"] == pytest.approx(0.4242)
        assert f["toy_share_ci"] == [0.31313, 0.51515] and f["toy_share_n_items"] == 5

        store = Store(demo)
        try:
            report = build_report(store, PROJECT, n_resamples=0)
        finally:
            store.close()
        md = render_report(report, "md")
        html = render_report(report, "html")
        assert "| resolution | Toy share | 0.424 | [0.313, 0.515] | 5/5 |  |" in md
        assert "<td>Toy share</td><td>0.424</td><td>[0.313, 0.515]</td><td>5/5</td>" in html
        assert "a statistic declared by a test" in md and "a statistic declared by a test" in html

        at = open_app(monkeypatch, demo, project=PROJECT, page="pages/agreement.py")
        (summary,) = [d.value for d in at.dataframe if "Toy share" in d.value.columns]
        assert summary.loc[0, "Toy share"] == pytest.approx(0.4242)
        assert summary.loc[0, "Toy share n"] == "5/5"
        (every,) = [d.value for d in at.dataframe if "n / units" in d.value.columns]
        toy = every[every["statistic"] == "Toy share"].iloc[0]
        assert (toy["value"], toy["95% CI"], toy["n / units"]) == ("0.424", "[0.313, 0.515]", "5/5")
        panel = open_app(monkeypatch, demo, script=_panel_script)
        (others,) = [e for e in panel.expander if e.label == "Other statistics"]
        assert "**Toy share** 0.424 · n 5/5" in [c.value for c in others.caption]
    # undeclared again: gone from the document
    assert main(["--db", demo, "agreement", PROJECT, "--json", "--resamples", "0"]) == 0
    assert "toy_share" not in json.loads(capsys.readouterr().out)["fields"]["resolution"]


def test_report_annotator_table_has_cis_formatted_like_the_estimates(demo: str) -> None:
    store = Store(demo)
    try:
        report = build_report(store, "demo-intent-match", n_resamples=200)
    finally:
        store.close()
    md = render_report(report, "md")
    assert "| field | statistic | value | 95% CI | n / units | note |" in md
    f = report.data["fields"]["gold_fact_labels"]
    for key, label in (
        ("fleiss_kappa", "Fleiss kappa (modal-count items)"),
        ("gwet_ac1", "AC1"),
        ("fleiss_kappa_all_items", "Fleiss kappa (all items)"),
    ):
        lo, hi = f[f"{key}_ci"]
        cell = f"| gold_fact_labels | {label} | {f[key]:.3f} | [{lo:.3f}, {hi:.3f}] |"
        assert cell in md, cell
    lo, hi = f["krippendorff_alpha_ci"]["nominal"]
    assert (
        f"| alpha nominal | {f['krippendorff_alpha']['nominal']:.3f} | [{lo:.3f}, {hi:.3f}] |" in md
    )
    # Fleiss' n beside the number of units, and which items each kappa used
    assert f"| {f['fleiss_n_items']}/{f['n_items']} |" in md
    assert f["fleiss_items_note"] in md
    assert "None" not in md
    tables = re.findall(r"<table>.*?</table>", render_report(report, "html"), flags=re.S)
    assert tables and not [t for t in tables if "None" in t]


@pytest.mark.parametrize(
    "project",
    ["demo-intent-match", "demo-actionability", "demo-dialogue", "demo-intent-resolution"],
)
def test_agreement_page_tables_show_no_literal_none(demo: str, monkeypatch, project: str) -> None:
    """Every demo; on intent match the derived scores leave Fleiss, AC1 and Cohen undefined."""
    at = open_app(monkeypatch, demo, project=project, page="pages/agreement.py")
    cells = _cells(at)
    assert cells and not [c for c in cells if c in ("None", "nan", "NaN", "<NA>")]
    if project == "demo-intent-match":
        assert "—" in cells
    # no CI rendered as raw floats: every CI cell is a formatted interval or a dash
    for d in at.dataframe:
        frame = _shown(d)
        for col in [c for c in frame.columns if "CI" in str(c)]:
            assert all(str(v) == "—" or str(v).count(".") == 2 for v in frame[col]), col
    # what a dash means is said under the table
    from ui.agreement_tables import NOT_SHOWN

    assert NOT_SHOWN in [str(c.value) for c in at.caption]


def _panel_script() -> None:
    from ui.agreement_panel import agreement_panel

    agreement_panel("demo-intent-resolution")


def test_side_panel_says_why_fleiss_n_dropped(demo: str, monkeypatch) -> None:
    at = rerun_until(open_app(monkeypatch, demo, script=_panel_script), lambda at: at.metric)
    text = " ".join(str(c.value) for c in at.caption)
    assert "uses the 5 items with 3 ratings" in text
    # alpha leads (the field's level, any raters, missing ratings); the kappas a click away
    assert [m.label for m in at.metric] == ["α ordinal"]
    assert "Krippendorff's alpha (ordinal) leads" in text
    assert "**Fleiss κ (modal)**" in text and "**Fleiss κ (all)**" in text
    store = Store(demo)
    try:
        store.save_label(PROJECT, "cake", "late-annotator", "resolution", 0.6, status="submitted")
    finally:
        store.close()
    for _ in range(100):  # the panel's ticks: the new figures are computed off the tick
        at.run()
        text = " ".join(str(c.value) for c in at.caption)
        if "Fleiss n changed" in text:
            break
        time.sleep(0.1)
    assert (
        "Fleiss n changed from 5 to 4: Fleiss kappa (modal-count items) uses the 4 items with "
        "3 ratings; left out: 1 item with 4 ratings. Fleiss kappa (all items) uses all 5 "
        "items with a rating."
    ) in text
    assert "· n 4/5" in text and "· n 5/5" in text
    # 5 items: every new label can move the headline a lot, and the panel says so
    assert "Only 5 item(s) with two or more ratings" in text


def test_reliability_error_bars_stop_at_the_axis_range() -> None:
    from reports.figures import reliability_bars

    f = {
        "krippendorff_alpha": {"nominal": 0.2},
        "krippendorff_alpha_ci": {"nominal": [-0.6, 0.9]},
        "fleiss_kappa": None,
    }
    fig = reliability_bars({"fields": {"x": f}})
    (bar,) = fig.data
    low = fig.layout.yaxis.range[0]
    assert low == pytest.approx(-0.1)
    assert bar.error_y.arrayminus[0] == pytest.approx(0.2 - low)  # not 0.8: clipped at -0.1
    assert bar.error_y.array[0] == pytest.approx(0.7)


def test_side_panel_computes_only_the_panel_statistics(demo: str, monkeypatch) -> None:
    """The panel redraws often: the ICCs (pingouin, a heavy import) are not computed."""
    import agreement.icc
    from reports.panel import panel_summary

    def boom(r):
        raise AssertionError("ICC computed for the side panel")

    monkeypatch.setattr(agreement.icc, "icc_forms", boom)
    store = Store(demo)
    try:
        s = panel_summary(store, PROJECT, "resolution")
    finally:
        store.close()
    assert [x["key"] for x in s["statistics"]] == [
        "krippendorff_alpha",
        "fleiss_kappa",
        "fleiss_kappa_all_items",
    ]
    assert s["statistics"][0]["label"] == "α ordinal" and s["statistics"][0]["text"] == "0.810"


# -- issue 26: one measure of each evaluator section, and a plugin's ------------------

EV_PROJECT = "demo-intent-match"


def _tally(res) -> Stat:
    """A made-up evaluator measure: a tenth of the items compared, fixed CI and p."""
    return Stat(res.n / 10, res.n, None, (0.25, 0.75), p=0.0123)


def _accuracy(res) -> Stat:
    b = res.binary
    return Stat.of((b.tp + b.tn) / b.n if b.n else None, b.n, "no decisions")


def _misses(res) -> Stat:
    return Stat(res.bias.over + res.bias.under, res.bias.n)


TOYS = (
    Measure(
        "toy_tally",
        MeasureView(
            "Toy tally",
            "Toy tally of compared items",
            panel=True,
            short="tally",
            method="an evaluator measure declared by a test",
        ),
        SCORED,
        compute=_tally,
        section=EVALUATOR,
    ),
    Measure(
        "toy_accuracy",
        MeasureView(
            "Toy accuracy",
            "Toy share of agreeing decisions",
            panel=True,
            short="acc",
        ),
        SCORED,
        compute=_accuracy,
        section=BINARY,
    ),
    Measure(
        "toy_misses",
        MeasureView(
            "Toy misses",
            "Toy count of items off by 2 or more",
            summary=True,
            panel=True,
            short="misses",
            digits=1,
        ),
        SCORED,
        compute=_misses,
        section=BIAS,
    ),
)


def _field_panel(project: str, field: str) -> None:
    import streamlit as st

    from ui.agreement_panel import FIELD_KEY, agreement_panel

    st.session_state[FIELD_KEY] = field
    agreement_panel(project)


def _report(url: str, project: str) -> tuple[str, str, str]:
    from reports.text import evaluator_lines

    store = Store(url)
    try:
        report = build_report(store, project, n_resamples=0)
    finally:
        store.close()
    text = "\n".join(
        line for ev, by in report.data["evaluators"].items() for line in evaluator_lines(ev, by)
    )
    return render_report(report, "md"), render_report(report, "html"), text


def _rows(url: str, project: str) -> pd.DataFrame:
    from interop.agreement_bundle import agreement_frame
    from workbench_api.analysis import agreement

    store = Store(url)
    try:
        return agreement_frame(agreement(store, project, resamples=0).rows())
    finally:
        store.close()


def test_one_measure_of_each_evaluator_section_reaches_every_view(
    demo: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with contextlib.ExitStack() as stack:
        for toy in TOYS:
            stack.enter_context(declared(toy))
        assert main(["--db", demo, "agreement", EV_PROJECT, "--json", "--resamples", "0"]) == 0
        doc = json.loads(capsys.readouterr().out)
        e = doc["evaluators"]["bifact (demo)"]["f1"]
        assert e["n"] == 6 and e["toy_tally"] == pytest.approx(0.6)
        assert (e["toy_tally_ci"], e["toy_tally_n_items"], e["toy_tally_p"]) == (
            [0.25, 0.75],
            6,
            0.0123,
        )
        b = e["binary"]
        confusion = b["confusion"]
        assert b["toy_accuracy"] == pytest.approx((confusion["tp"] + confusion["tn"]) / b["n"])
        assert e["bias"]["toy_misses"] == e["bias"]["over"] + e["bias"]["under"]
        (row,) = [
            r
            for r in doc["calibrated"]["match"]
            if r["evaluator"] == "bifact (demo)" and r["score_field"] == "f1"
        ]
        assert row["toy_accuracy"] == b["toy_accuracy"]

        md, html, text = _report(demo, EV_PROJECT)
        assert "| Toy tally [CI] | p |" in md and "| bias Toy misses |" in md
        assert "| 0.600 [0.250, 0.750] | 0.0123 |" in md
        assert (
            f"| {b['kappa']:.3f} | {b['toy_accuracy']:.3f} | {b['n']} |" in md
            and "Toy accuracy" in md
        )
        assert (
            "<th>Toy tally [CI]</th>" in html and "an evaluator measure declared by a test" in html
        )
        assert "tally 0.600 (p=0.0123) [0.250, 0.750]" in text
        assert f"Toy misses {e['bias']['toy_misses']:.1f}/6" in text

        at = open_app(monkeypatch, demo, project=EV_PROJECT, page="pages/agreement.py")
        at.session_state["agreement_tab"] = "Evaluators vs humans"
        at.run()
        (versus,) = [d.value for d in at.dataframe if {"statistic", "r"} <= set(d.value.columns)]
        toy = versus[versus["statistic"] == "Toy tally"].iloc[0]
        assert (toy["r"], toy["95% CI"], toy["n"]) == (pytest.approx(0.6), "[0.250, 0.750]", 6)
        at.session_state["agreement_tab"] = "Calibrated binary"
        at.run()
        (calibrated,) = [d.value for d in at.dataframe if "toy_accuracy" in d.value.columns]
        assert len(calibrated) == len(doc["calibrated"]["match"])

        panel = open_app(monkeypatch, demo, script=_field_panel, args=(EV_PROJECT, "f1"))
        rerun_until(panel, panel_caption("**bifact (demo)**"))
        captions = " ".join(str(c.value) for c in panel.caption)
        bifact = f"**bifact (demo)** r {e['pearson']['r']:.2f} · ρ {e['spearman']['r']:.2f}"
        assert bifact in captions and "tally 0.60 · acc" in captions
        assert f"misses {e['bias']['toy_misses']:.2f}" in captions

        rows = _rows(demo, EV_PROJECT).query("subject == 'bifact (demo)' and field == 'f1'")
        got = rows.set_index("statistic")
        assert got.loc["toy_tally", "value"] == pytest.approx(0.6)
        assert (got.loc["toy_tally", "p"], got.loc["toy_tally", "ci_high"]) == (0.0123, 0.75)
        assert got.loc["toy_accuracy", "section"] == BINARY
        assert got.loc["toy_misses", "value"] == e["bias"]["toy_misses"]
    assert main(["--db", demo, "agreement", EV_PROJECT, "--json", "--resamples", "0"]) == 0
    assert "toy_tally" not in capsys.readouterr().out


PLUGIN_MODULE = """
from agreement.measures import Measure, register_measure
from agreement.builtin_measures.evaluator_vs_people import SCORED
from agreement.measures import BIAS, BINARY, EVALUATOR, Measure
from agreement.results import Stat

register_measure(
    Measure(
        "plugin_share",
        "Plugin share",
        "Share of pairable units (a plugin's)",
        frozenset({"ordinal"}),
        compute=lambda ctx: Stat(float(ctx.ratings.pairable.mean()), int(ctx.ratings.pairable.sum())),
        summary=True,
        panel=True,
        method="declared by an installed plugin",
    )
)
"""


@pytest.mark.plugins
def test_a_plugin_statistic_through_the_entry_point_reaches_every_view(
    demo: str, tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys
    from importlib.metadata import EntryPoint

    import common.registry
    from agreement.measures import ENTRY_POINT_GROUP, MEASURES
    from reports.panel import panel_summary

    (tmp_path / "toy_measure_plugin.py").write_text(PLUGIN_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toy_measure_plugin", raising=False)
    ep = EntryPoint("toy", "toy_measure_plugin", ENTRY_POINT_GROUP)
    monkeypatch.setattr(
        common.registry,
        "entry_points",
        lambda group: [ep] if group == ENTRY_POINT_GROUP else [],
    )
    MEASURES.values()  # the built-ins first, so the snapshot holds every one of them
    monkeypatch.setattr(MEASURES, "_entries", dict(MEASURES._entries))
    monkeypatch.setattr(MEASURES, "_discovered", False)

    assert main(["--db", demo, "agreement", PROJECT, "--json", "--resamples", "0"]) == 0
    f = json.loads(capsys.readouterr().out)["fields"]["resolution"]
    assert (f["plugin_share"], f["plugin_share_n_items"]) == (1.0, 5)
    md, html, _ = _report(demo, PROJECT)
    assert "| resolution | Plugin share | 1.000 | — | 5/5 |  |" in md
    assert "declared by an installed plugin" in html
    store = Store(demo)
    try:
        panel = panel_summary(store, PROJECT, "resolution")
    finally:
        store.close()
    assert {"key": "plugin_share", "text": "1.000"}.items() <= next(
        s for s in panel["statistics"] if s["key"] == "plugin_share"
    ).items()
    at = open_app(monkeypatch, demo, project=PROJECT, page="pages/agreement.py")
    (summary,) = [d.value for d in at.dataframe if "Plugin share" in d.value.columns]
    assert summary.loc[0, "Plugin share"] == pytest.approx(1.0)
    row = _rows(demo, PROJECT).query("statistic == 'plugin_share'").iloc[0]
    assert (row["section"], row["field"], row["value"], row["n"]) == (
        "among_people",
        "resolution",
        1.0,
        5,
    )


@pytest.mark.plugins
def test_an_installed_plugin_statistic_comes_after_the_built_ins(tmp_path) -> None:
    """A real entry point (a dist-info on the path, no monkeypatching) in a fresh process:
    the plugin's statistic is registered after every built-in, whatever is imported first."""
    import subprocess
    import sys

    from tests.support.cli import ROOT

    (tmp_path / "toy_measure_plugin.py").write_text(PLUGIN_MODULE)
    info = tmp_path / "toy_measure_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toy-measure-plugin\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text("[metric_audit.statistics]\ntoy = toy_measure_plugin\n")
    code = (
        "from agreement.statistics import statistics\n"
        "print(' '.join(s.key for s in statistics()))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tmp_path}:{ROOT}"}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    keys = proc.stdout.split()
    assert keys[0] == "krippendorff_alpha" and keys[-1] == "plugin_share"
    assert "icc_c_k" in keys and "pearson_pairs_mean" in keys
