"""Figures that say how much they rest on, flags on degenerate results, true reasons
(issue #16 points 1, 2 and 4): through the CLI's document and the plotly figures."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from agreement.binary import THRESHOLDS, calibrated, compare, flag_lines
from annotation_store import Store
from demo.loading import load_demo
from reports import figures
from reports.data import agreement_document
from tests.test_agreement_known import _items, project  # noqa: F401  (fixture)

# A and B label all 8 items; C only u1 and u2, always against A and B (kappa -1 with
# each of them on 2 shared items): the demo's `admin` situation.
A = [1, 0, 1, 1, 0, 0, 1, 0]
B = [1, 0, 1, 0, 0, 0, 1, 1]
C = [0, 1]


def _pairs_project(project, settings=None):  # noqa: F811
    p = project("pairs", "binary", settings)
    p.load("items", _items(8))
    rows = [
        {"item_id": f"u{i + 1}", "annotator": who, "field": "label", "value": v}
        for who, vals in (("A", A), ("B", B), ("C", C))
        for i, v in enumerate(vals)
    ]
    p.load("annotations", rows)
    return p


def test_pairs_below_the_minimum_overlap_leave_the_mean_and_are_grey(project):  # noqa: F811
    f = _pairs_project(project).agreement()["fields"]["label"]
    ab = cohen_kappa_score(A, B)
    assert f["cohen_kappa_pairs"]["A|B"] == pytest.approx(ab)
    assert f["cohen_kappa_pairs"]["A|C"] == pytest.approx(cohen_kappa_score(A[:2], C))
    assert f["cohen_kappa_pairs"]["A|C"] == pytest.approx(-1.0)
    assert f["cohen_kappa_pairs_n"] == {"A|B": 8, "A|C": 2, "B|C": 2}
    assert f["cohen_kappa_min_overlap"] == 5
    assert f["cohen_kappa_pairs_few"] == ["A|C", "B|C"]
    # the mean rests on A|B alone (before: the mean of 0.5, -1 and -1)
    assert f["cohen_kappa_mean"] == pytest.approx(ab)
    note = f["reasons"]["cohen_kappa_pairs_few"]
    assert "fewer than 5 items" in note and "A|C (n=2)" in note and "B|C (n=2)" in note

    fig = figures.kappa_heatmap(f, "label")
    colour, grey = fig.data
    people = list(colour.x)
    assert people == ["A", "B", "C"]
    # grey cells exactly where C meets A or B; coloured only A|B
    assert np.argwhere(~np.isnan(np.array(grey.z, dtype=float))).tolist() == [
        [0, 2],
        [1, 2],
        [2, 0],
        [2, 1],
    ]
    assert np.argwhere(~np.isnan(np.array(colour.z, dtype=float))).tolist() == [[0, 1], [1, 0]]
    assert colour.text[0][1] == f"{ab:.2f}<br>n=8"
    assert grey.text[0][2] == "-1.00<br>n=2 (few)"
    assert colour.text[0][2] == "" and grey.text[0][1] == ""  # one label per cell
    assert "grey: fewer than 5" in fig.layout.title.text
    assert "min_pair_overlap" in figures.pair_note(f)


def test_min_pair_overlap_is_a_project_setting(project):  # noqa: F811
    f = _pairs_project(project, {"min_pair_overlap": 2}).agreement()["fields"]["label"]
    values = [cohen_kappa_score(A, B), -1.0, cohen_kappa_score(B[:2], C)]
    assert f["cohen_kappa_pairs_few"] == []
    assert f["cohen_kappa_mean"] == pytest.approx(np.mean(values))
    assert figures.pair_note(f) is None
    assert len(figures.kappa_heatmap(f, "label").data) == 1


def test_min_pair_overlap_must_be_a_whole_number(store: Store) -> None:
    from annotation_store import StoreError
    from kinds import ValidationError

    with pytest.raises((ValidationError, StoreError), match="min_pair_overlap"):
        store.create_project("bad", "binary", {"min_pair_overlap": 0})
    assert [p.name for p in store.projects()] == []


@pytest.fixture
def demo(store: Store) -> Store:
    load_demo(store)
    return store


def test_derived_scores_get_the_true_reason_for_no_cohen_mean(demo: Store) -> None:
    doc = agreement_document(demo, "demo-intent-match", n_resamples=0).to_dict()
    for name in ("recall", "precision", "f1"):
        d = doc["derived"][name]
        assert d["n_annotators"] == 3 and d["cohen_kappa_mean"] is None
        assert d["reasons"]["cohen_kappa_mean"] == (
            "Cohen's kappa is for categorical ratings; see alpha"
        )


def test_one_annotator_has_no_pair(project):  # noqa: F811
    p = project("solo", "binary")
    p.load("items", _items(3))
    p.load(
        "annotations",
        [{"item_id": f"u{i}", "annotator": "A", "field": "label", "value": 1} for i in (1, 2, 3)],
    )
    f = p.agreement()["fields"]["label"]
    assert f["reasons"]["cohen_kappa_mean"] == "fewer than two annotators"


def test_demo_calibrated_table_is_flagged(demo: Store) -> None:
    """The demo's calibrated rows: threshold 0.01, kappa 0, 4 test items, all positive."""
    doc = agreement_document(demo, "demo-intent-match", n_resamples=0).to_dict()
    rows = doc["calibrated"]["match"]
    assert [r["threshold"] for r in rows] == pytest.approx([0.01] * len(rows))
    for r in rows:
        assert r["n"] == 4 and r["kappa"] == 0.0
        assert set(r["flags"]) == {"small_test", "threshold_at_edge", "one_decision"}
        assert "4 items (fewer than 30)" in r["flags"]["small_test"]
        assert "grid's lowest" in r["flags"]["threshold_at_edge"]
        assert r["flags"]["one_decision"].startswith("the evaluator said yes to all 4 items")
    lines = flag_lines(rows)
    # each of the three flags once, naming every score it concerns
    assert len(lines) == 3
    who = ", ".join(f"{r['evaluator']} · {r['score_field']}" for r in rows)
    assert lines[0] == f"{rows[0]['flags']['one_decision']} ({len(rows)} scores: {who})"
    # and the confusion matrix says which split, n and the flags
    b = doc["evaluators"]["embedding-similarity (demo)"]["match"]["binary"]
    title = figures.confusion(b, "embedding-similarity (demo)", "match").layout.title.text
    assert "test split, n = 4, threshold 0.01" in title
    assert "test split too small" in title and "threshold at the grid's edge" in title
    assert "one decision for every item" in title and "one_decision" not in title


def test_one_class_decisions_or_labels_are_flagged() -> None:
    gold = np.array([1, 0, 1, 1, 0, 1])
    all_yes = compare(np.ones(6, bool), gold)
    assert (all_yes.kappa, all_yes.precision, all_yes.recall) == (0.0, pytest.approx(4 / 6), 1.0)
    assert set(all_yes.flags) == {"one_decision"}
    assert "said yes to all 6 items" in all_yes.flags["one_decision"]
    assert "said no to all 6" in compare(np.zeros(6, bool), gold).flags["one_decision"]
    one_label = compare(np.array([1, 0, 1, 1, 0, 1], bool), np.ones(6, int))
    assert set(one_label.flags) == {"one_reference_label"}
    assert compare(gold.astype(bool), gold).flags == {}


def test_calibration_flags_only_when_degenerate() -> None:
    rng = np.random.default_rng(1)
    gold = np.array([0, 1] * 40)
    scores = np.clip(gold * 0.5 + rng.uniform(0, 0.45, 80), 0, 1)
    dev = np.zeros(80, bool)
    dev[:20] = True
    res = calibrated(scores, gold, dev, ~dev)
    assert res.n == 60 and res.flags == {}
    assert THRESHOLDS[0] < res.threshold < THRESHOLDS[-1]
    # only a perfect score separates the classes: the threshold is the grid's top
    top = np.where(gold == 1, 1.0, 0.99)
    res = calibrated(top, gold, dev, ~dev)
    assert res.threshold == pytest.approx(1.0)
    assert set(res.flags) == {"threshold_at_edge"} and "highest" in res.flags["threshold_at_edge"]
    small = calibrated(scores, gold, dev, np.arange(80) >= 70)
    assert small.n == 10 and set(small.flags) == {"small_test"}


def test_every_figure_states_its_n(demo: Store) -> None:
    doc = agreement_document(demo, "demo-intent-resolution", n_resamples=50)
    data = doc.to_dict()
    f = data["fields"]["resolution"]
    bars = figures.reliability_bars(data)
    for trace in bars.data:
        assert list(trace.text) == [f"n={f['n_pairable']}"] * len(trace.x)
        assert all("5 items" in x for x in trace.x)
    res = doc.evaluators["intent-judge (demo)"]["resolution"]
    sc = figures.scatter(res.pairs, "intent-judge (demo)", "resolution", 0.9939917658034135)
    assert sc.layout.title.text == (
        "intent-judge (demo) vs humans on resolution<br><sup>Pearson r = 0.994, n = 5 items</sup>"
    )
    hm = figures.kappa_heatmap(f, "resolution")
    texts = [t for row in hm.data[0].text for t in row if t]
    assert len(hm.data) == 1
    assert len(texts) == 6 and all(t.endswith("n=5") for t in texts)
    # the report's figures carry the same titles, in the report's template (the page's
    # keep the default: Streamlit themes them, and a named template costs deep copies)
    report_figs = [fig for _, fig in figures.document_figures(doc, data)]
    assert any("n = 5 items" in fig.layout.title.text for fig in report_figs)
    assert {fig.layout.template.layout.plot_bgcolor for fig in report_figs} == {"white"}
    assert bars.layout.template.layout.plot_bgcolor != "white"


def test_bias_without_own_model_items_explains_instead_of_drawing(demo: Store) -> None:
    doc = agreement_document(demo, "demo-intent-match", n_resamples=0).to_dict()
    bias = doc["evaluators"]["bifact (demo)"]["precision"]["bias"]
    assert bias["n_own"] == 0 and bias["n_other"] == 6
    assert figures.bias_bars(bias, "t") is None
    why = figures.bias_explanation(bias)
    assert why == "no item generated by the judge's own model (recorded-demo-replies)"
    caption = figures.bias_caption(bias)
    assert "None" not in caption
    assert caption.startswith(
        "own model: no item generated by the judge's own model (recorded-demo-replies) · "
        "all items: over-estimated on 1 of 6, under-estimated on 0 of 6"
    )
    assert "Fisher test: —" in caption


def test_bias_chart_keeps_shares_on_the_axis_and_counts_in_the_hover(demo: Store) -> None:
    doc = agreement_document(demo, "demo-actionability", n_resamples=0).to_dict()
    bias = doc["evaluators"]["geval (demo)"]["actionability"]["bias"]
    fig = figures.bias_bars(bias, "geval")
    over = fig.data[0]
    assert list(over.x) == ["gpt-4o<br>n=3", "llama-3-70b<br>n=2"]
    assert list(over.y) == pytest.approx([2 / 3, 0.0])
    assert [list(c) for c in over.customdata] == [[2, 3], [0, 2]]
    assert over.text is None  # no "2/3" counts printed over share bars
    caption = figures.bias_caption(bias)
    # the own-model counts (FinGrAct's headline) first, with the match that made them own
    assert caption.startswith("own model: over 2 / under 0 of 3 (exact match: gpt-4o) · ")
    assert "other models' items: over on 0 of 2" in caption
    assert "Fisher exact p = 0.4" in caption


def test_report_shows_the_calibration_flags(demo: Store) -> None:
    from reports import build_report, render_report

    report = build_report(demo, "demo-intent-match")
    md = render_report(report, "md")
    html = render_report(report, "html")
    # each flag once, with the scores it concerns (four calibrated scores share them)
    assert md.count("- ⚠ test split too small: 4 items") == 1
    assert "embedding-similarity (demo) · match)" in md
    assert html.count("⚠ threshold 0.01 is the grid&#x27;s lowest") == 1
    assert "(4 scores: bifact (demo) · f1, " in html
    doc = json.loads(render_report(report, "json"))
    assert doc["agreement"]["calibrated"]["match"][0]["flags"]


def test_reports_lead_the_bias_with_the_own_model_counts(demo: Store) -> None:
    import json

    from reports import build_report, render_report
    from reports.text import document_text

    report = build_report(demo, "demo-actionability")
    own = "geval (demo) / actionability / bias: own model: over 2 / under 0 of 3 (exact match"
    for fmt in ("md", "html"):
        text = render_report(report, fmt)
        assert own in text, fmt
        # the bias columns: the judge's own model first, then all items
        assert text.index("bias over (own model)") < text.index("bias under (own model)")
    line = next(x for x in document_text(report.document.to_dict()).splitlines() if "2.0/3" in x)
    assert line.index("over (own model) 2.0/3") < line.index("over 2.0/5")
    assert line.endswith("(exact match: gpt-4o)")
    bias = json.loads(render_report(report, "json"))["agreement"]["evaluators"]["geval (demo)"]
    assert list(bias["actionability"]["bias"])[:3] == ["over_own", "under_own", "n_own"]


def test_a_bias_reason_given_beside_the_missing_chart_is_not_repeated(demo: Store) -> None:
    """The Evaluators tab said "no item generated by the judge's own model" three times
    per evaluator (no chart, own model, Fisher test), and "other models' items" repeated
    "all items" when no item was the judge's own."""
    doc = agreement_document(demo, "demo-intent-match", n_resamples=0).to_dict()
    bias = doc["evaluators"]["bifact (demo)"]["precision"]["bias"]
    why = figures.bias_explanation(bias)
    caption = figures.bias_caption(bias, said=why)
    assert why not in caption and "other models' items" not in caption
    assert caption == (
        "all items: over-estimated on 1 of 6, under-estimated on 0 of 6 · Fisher test: —"
    )


def test_the_evaluators_tab_states_each_bias_reason_once(
    monkeypatch: pytest.MonkeyPatch, demo: Store
) -> None:
    from tests.support.apptest import open_app

    demo.ensure_annotator("admin", role="admin")
    at = open_app(
        monkeypatch, demo.url, page="pages/agreement.py", project="demo-intent-match", timeout=120
    )
    at.session_state["agreement_tab"] = "Evaluators vs humans"
    at.selectbox(key="agreement_field").set_value("precision")
    at.run()
    captions = [str(c.value) for c in at.caption]
    reasons = [c.split("no chart, ", 1)[1].rstrip(".") for c in captions if "no chart, " in c]
    assert reasons, captions
    text = " ".join(captions)
    assert all(text.count(why) == 1 for why in reasons), captions
