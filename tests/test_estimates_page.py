"""AppTest: the Estimates page and the live estimates side panel."""

from __future__ import annotations

import time

import pytest

from annotation_store import Store
from tests.support.apptest import app_session, assert_ok, open_app, panel_caption, rerun_until
from tests.support.estimates_project import build
from workbench_api.estimates import estimate


def _page(monkeypatch: pytest.MonkeyPatch, store: Store, url: str):
    store.ensure_annotator("admin", role="admin")
    return open_app(monkeypatch, url, page="pages/estimates.py", project="p", timeout=120)


def test_page_draws_three_estimates_per_system_and_a_plan(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    build(store, "p", n_items=300, n_labelled=60)
    at = _page(monkeypatch, store, sqlite_url)
    assert at.selectbox(key="estimates_field").value == "label"
    assert at.selectbox(key="estimates_judge").value == "toyjudge imported"
    table = at.dataframe[0].value
    assert list(table["system"].unique()) == ["overall", "alpha", "beta"]
    assert set(table["method"]) >= {"human only", "judge only (biased)", "PPI++"}
    expected = estimate(store, "p", "label", "toyjudge", by_generator=True)
    alpha = table[(table["system"] == "alpha") & (table["method"] == "PPI++")].iloc[0]
    ppi = expected.groups[1].ppi
    assert float(alpha["estimate"]) == pytest.approx(ppi.estimate, abs=1e-4)
    assert alpha["95% CI"] == f"[{ppi.ci[0]:.3f}, {ppi.ci[1]:.3f}]"
    assert len(at.get("plotly_chart")) == 1
    plans = at.dataframe[2].value
    assert "PPI++ mean" in set(plans["figure"])
    at.number_input(key="estimates_target").set_value(0.0).run()
    assert_ok(at)
    assert len(at.dataframe) == 2  # estimates and differences, no plan


def test_page_without_scores_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    import workbench_api as wb

    wb.create_project(store, "p", "binary")
    at = _page(monkeypatch, store, sqlite_url)
    assert "No evaluator has scored" in at.info[0].value


def test_page_with_too_few_labels_draws_no_empty_chart(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    build(store, "p", n_items=8, n_labelled=4)
    at = _page(monkeypatch, store, sqlite_url)
    assert len(at.get("plotly_chart")) == 0
    assert any("No estimate has an interval yet" in str(c.value) for c in at.caption)
    notes = set(at.dataframe[0].value["note"].dropna())
    assert any("at least 10" in n for n in notes)


def _panel_script() -> None:
    from ui.estimates_panel import estimates_panel

    estimates_panel("p")


def test_side_panel_moves_when_a_label_arrives(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    truth = build(store, "p", n_items=200, n_labelled=40)
    at = app_session(monkeypatch, sqlite_url, script=_panel_script, timeout=120).run()
    rerun_until(at, panel_caption("**overall**"))
    text = " ".join(str(c.value) for c in at.caption)
    assert "n 40 people / 200 judged" in text
    before = next(str(c.value) for c in at.caption if "**overall**" in str(c.value))
    new = truth[~truth["labelled"]].iloc[0]
    store.save_label("p", new.item_id, "someone", "label", int(1 - new.judge), status="submitted")
    for _ in range(100):  # the panel's ticks: the new estimates are computed off the tick
        at.run()
        assert_ok(at)
        after = next(str(c.value) for c in at.caption if "**overall**" in str(c.value))
        if after != before:
            break
        time.sleep(0.1)
    assert "n 41 people / 200 judged" in after and after != before


def test_the_default_judge_is_the_newest_run_not_the_last_name(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """An old metric named late in the alphabet does not stay the default once a judge
    is run after it (the demo showed its word-overlap metric, not the judge's v2)."""
    import pandas as pd

    import workbench_api as wb

    truth = build(store, "p", n_items=60, n_labelled=20, evaluator="zz-metric")
    wb.add_scores(
        store,
        "p",
        pd.DataFrame(
            {"item_id": truth["item_id"], "evaluator": "a-judge", "field": "label", "value": 1}
        ),
    )
    at = _page(monkeypatch, store, sqlite_url)
    assert at.selectbox(key="estimates_judge").options == ["zz-metric imported", "a-judge imported"]
    assert at.selectbox(key="estimates_judge").value == "a-judge imported"
    panel = app_session(monkeypatch, sqlite_url, script=_panel_script, timeout=120).run()
    rerun_until(panel, lambda at: bool(at.markdown))
    assert panel.markdown[0].value.endswith("· a-judge imported")


def test_figures_have_three_decimals_and_methods_their_table_names(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """Not 0.5408 beside 0.698, and not "ppi: ..." above a table that says "PPI++"."""
    import json
    import re

    build(store, "p", n_items=300, n_labelled=60)
    at = _page(monkeypatch, store, sqlite_url)
    checked = 0
    for table in at.dataframe:
        columns = json.loads(table.proto.columns)
        for name in ("estimate", "lambda", "difference", "half-width now", "interval saved"):
            if name not in table.value.columns:
                continue
            checked += 1
            kind = columns.get(name, {}).get("type_config", {})
            if kind.get("type") == "text":  # a column with "—": its numbers drawn as text
                shown = [v for v in table.value[name] if v != "—"]
                assert shown and all(re.fullmatch(r"[+-]?\d+\.\d{3}", v) for v in shown), shown
            else:
                assert kind.get("format") in ("%.3f", "%+.3f"), (name, kind)
    assert checked == 5
    caption = next(str(c.value) for c in at.caption if "human reference" in str(c.value))
    assert "PPI++: prediction-powered mean" in caption and "ppi:" not in caption


def test_side_panel_says_a_missing_estimates_reason_once(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """Three systems without enough labels: one line with the reason, not three."""
    build(store, "p", n_items=30, n_labelled=6)
    at = app_session(monkeypatch, sqlite_url, script=_panel_script, timeout=120).run()
    rerun_until(at, panel_caption("needs at least"))
    text = [str(c.value) for c in at.caption]
    reasons = [line for line in text if "needs at least" in line]
    assert len(reasons) == 1, text
    assert reasons[0].startswith("No estimate yet for ")
