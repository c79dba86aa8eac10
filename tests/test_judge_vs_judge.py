"""Judge vs judge: the paired bootstrap difference in ``alignment --json``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import workbench_api as wb
from agreement.bootstrap import draw_counts
from agreement.paired_compare import paired_difference
from commands import main
from tests.support.estimates_project import build


def test_paired_difference_equals_a_loop_over_resamples() -> None:
    rng = np.random.default_rng(2)
    ref = (rng.random(80) < 0.5).astype(float)
    a = np.where(rng.random(80) < 0.9, ref, 1 - ref)
    b = np.where(rng.random(80) < 0.7, ref, 1 - ref)
    res = paired_difference("kappa", a, b, ref, n_resamples=300, seed=5)
    assert res.value_a == pytest.approx(cohen_kappa_score(a, ref))
    assert res.difference == pytest.approx(cohen_kappa_score(a, ref) - cohen_kappa_score(b, ref))
    diffs = []
    for counts in draw_counts(80, 300, 5):
        idx = np.repeat(np.arange(80), counts.astype(int))
        diffs.append(cohen_kappa_score(a[idx], ref[idx]) - cohen_kappa_score(b[idx], ref[idx]))
    assert res.ci == pytest.approx(tuple(np.percentile(diffs, [2.5, 97.5])), abs=1e-12)
    tail = min(np.mean(np.array(diffs) <= 0), np.mean(np.array(diffs) >= 0))
    assert res.p == pytest.approx(max(2 * tail, 1 / 300))
    r = paired_difference("pearson", a + rng.normal(0, 0.1, 80), b, ref, n_resamples=200)
    assert r.statistic == "pearson" and r.ci[0] < r.difference < r.ci[1]
    few = paired_difference("spearman", a[:3], b[:3], ref[:3])
    assert few.difference is None and "fewer than 5" in few.reason


def test_alignment_json_compares_two_judges(store, sqlite_url, capsys) -> None:
    truth = build(store, "p", n_items=120, n_labelled=120, annotators=1, judge_accuracy=0.95)
    rng = np.random.default_rng(9)
    poor = np.where(rng.random(120) < 0.65, truth["truth"], 1 - truth["truth"])
    wb.add_scores(
        store,
        "p",
        pd.DataFrame(
            {"item_id": truth["item_id"], "evaluator": "poorjudge", "field": "label", "value": poor}
        ),
    )
    code = main(
        ["--db", sqlite_url, "alignment", "p", "--field", "label", "--json", "--resamples", "200"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    (pair,) = json.loads(out)["judge_vs_judge"]
    assert (pair["a"], pair["b"]) == ("poorjudge imported", "toyjudge imported")
    assert pair["statistic"] == "kappa" and pair["n"] == 120
    ka = cohen_kappa_score(poor, truth["truth"])
    kb = cohen_kappa_score(truth["judge"], truth["truth"])
    assert pair["difference"] == pytest.approx(ka - kb)
    assert pair["ci"][1] < 0 and pair["p"] < 0.01  # the poor judge is worse, clearly


def test_the_page_table_names_the_statistic_and_gives_three_decimals(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store
) -> None:
    """Not ``spearman`` beside 0.6651, 0.934 and 0.31 (the demo's table)."""
    from alignment.judge_vs_judge import judge_vs_judge_frame
    from tests.alignment_fixtures import build_toy
    from tests.support.apptest import open_app

    row = {"a": "x v1", "b": "x v2", "statistic": "spearman", "value_a": 0.6651}
    row |= {"value_b": 0.934, "difference": -0.2689, "ci": [-0.38, -0.17], "p": 0.001}
    frame = judge_vs_judge_frame({"judge_vs_judge": [row | {"n": 140, "reason": None}]})
    assert frame.loc[0, "statistic"] == "Spearman"
    build_toy(store, swap=False)
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=120)
    table = next(d for d in at.dataframe if "A - B" in d.value.columns)
    formats = {
        c: v.get("type_config", {}).get("format")
        for c, v in json.loads(table.proto.columns).items()
    }
    assert formats["A's"] == formats["B's"] == formats["p"] == "%.3f"
    assert formats["A - B"] == "%+.3f"
