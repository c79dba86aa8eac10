"""Known-answer tests through the whole path: import files with the CLI, then
``agreement --json``. Every expected number is a published worked example, checked here
or in the test's comment against an independent computation."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from commands import main

NAN = None
# Krippendorff (2011) "Computing Krippendorff's alpha-reliability", 4 coders x 12 units;
# published: nominal .743, ordinal .815, interval .849, ratio .797.
KRIPP = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
# Fleiss' kappa worked example (Wikipedia "Fleiss' kappa"): 10 subjects, 14 raters,
# 5 categories; P = 0.378, P_e = 0.213, kappa = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


class Project:
    """A project driven through the CLI in-process."""

    def __init__(
        self,
        tmp: Path,
        capsys: pytest.CaptureFixture[str],
        name: str,
        kind: str,
        settings: dict | None = None,
    ) -> None:
        self.tmp, self.capsys, self.name = tmp, capsys, name
        self.db = f"sqlite:///{tmp / 'wb.db'}"
        args = ["project", "create", name, "--kind", kind]
        if settings:
            args += ["--settings", json.dumps(settings)]
        self.run(*args)

    def run(self, *args: str) -> str:
        self.capsys.readouterr()
        code = main(["--db", self.db, *args])
        out = self.capsys.readouterr()
        assert code == 0, out.err
        return out.out

    def load(self, what: str, rows: list[dict]) -> None:
        path = self.tmp / f"{self.name}-{what}.csv"
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
            w.writeheader()
            w.writerows(rows)
        self.run("import", what, self.name, str(path))

    def agreement(self, *extra: str) -> dict:
        return json.loads(self.run("agreement", self.name, "--json", "--resamples", "200", *extra))


def _items(n: int, **extra) -> list[dict]:
    return [{"item_id": f"u{i + 1}", "text": f"t{i}", **extra} for i in range(n)]


def _matrix_rows(matrix, field="label", scale=1.0) -> list[dict]:
    return [
        {"item_id": f"u{u + 1}", "annotator": f"c{a + 1}", "field": field, "value": v * scale}
        for a, row in enumerate(matrix)
        for u, v in enumerate(row)
        if v is not None
    ]


@pytest.fixture
def project(tmp_path, capsys):
    def make(name, kind, settings=None):
        return Project(tmp_path, capsys, name, kind, settings)

    return make


def test_krippendorff_example_ordinal_field(project):
    p = project("kr", "likert", {"min": 1, "max": 5})
    p.load("items", _items(12))
    p.load("annotations", _matrix_rows(KRIPP))
    f = p.agreement()["fields"]["label"]
    alpha = f["krippendorff_alpha"]
    assert round(alpha["nominal"], 3) == 0.743
    assert round(alpha["ordinal"], 3) == 0.815
    assert round(alpha["interval"], 3) == 0.849
    assert f["n_pairable"] == 11  # unit 12 has one value: not pairable
    assert f["n_ratings"] == 41 and f["n_annotators"] == 4
    # 8 of 11 pairable units agree fully, units 2 (2,2,3,2) and 8 (1,1,2,1) on 3 of 6
    # pairs, unit 6 (1,2,3,4) on none: (8 + 0.5 + 0.5) / 11 (Gwet's p_a = 0.818)
    assert f["percent_agreement"] == pytest.approx(9 / 11)
    lo, hi = f["krippendorff_alpha_ci"]["nominal"]
    assert lo <= alpha["nominal"] <= hi
    assert f["gwet_ac1"] is None and "gwet_ac1" in f["reasons"]


def test_krippendorff_example_interval_and_ratio(project):
    p = project("score", "score")
    p.load("items", _items(12))
    p.load("annotations", _matrix_rows(KRIPP, scale=0.1))  # alpha is scale-invariant
    alpha = p.agreement()["fields"]["label"]["krippendorff_alpha"]
    assert set(alpha) == {"interval", "ratio"}
    assert round(alpha["interval"], 3) == 0.849
    assert round(alpha["ratio"], 3) == 0.797


def test_gwet_ac1_handbook_example(project):
    # Gwet (2014) Handbook, p.120 (irrCAC raw_4raters): AC1 = 0.77544, pa 0.818, pe 0.190.
    p = project("cat", "categorical", {"labels": ["1", "2", "3", "4", "5"]})
    p.load("items", _items(12))
    p.load("annotations", [dict(r, value=str(int(r["value"]))) for r in _matrix_rows(KRIPP)])
    f = p.agreement()["fields"]["label"]
    assert round(f["gwet_ac1"], 5) == 0.77544
    assert round(f["krippendorff_alpha"]["nominal"], 3) == 0.743


def test_fleiss_kappa_worked_example(project):
    labels = ["a", "b", "c", "d", "e"]
    p = project("fleiss", "categorical", {"labels": labels})
    p.load("items", _items(10))
    rows = []
    for i, counts in enumerate(FLEISS_TABLE):
        values = [lab for lab, c in zip(labels, counts, strict=True) for _ in range(c)]
        rows += [
            {"item_id": f"u{i + 1}", "annotator": f"r{j:02d}", "field": "label", "value": v}
            for j, v in enumerate(values)
        ]
    p.load("annotations", rows)
    f = p.agreement()["fields"]["label"]
    assert round(f["fleiss_kappa"], 3) == 0.210
    assert f["fleiss_n_items"] == 10
    # independent: P and P_e by hand from the table
    t = np.array(FLEISS_TABLE, dtype=float)
    p_bar = (((t**2).sum(1) - 14) / (14 * 13)).mean()
    p_e = ((t.sum(0) / t.sum()) ** 2).sum()
    assert f["fleiss_kappa"] == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_fleiss_uses_items_with_the_most_common_rater_count(project):
    p = project("fl2", "binary")
    p.load("items", _items(5))
    rows = [
        {"item_id": f"u{i}", "annotator": a, "field": "label", "value": v}
        for i, labs in enumerate([(1, 1, 1), (0, 0, 1), (1, 0, 0), (1, 1), (0,)], 1)
        for a, v in zip("ABC", labs, strict=False)
    ]
    p.load("annotations", rows)
    f = p.agreement()["fields"]["label"]
    assert f["fleiss_n_items"] == 3
    t = np.array([[0, 3], [2, 1], [2, 1]], dtype=float)
    p_bar = (((t**2).sum(1) - 3) / 6).mean()
    p_e = ((t.sum(0) / t.sum()) ** 2).sum()
    assert f["fleiss_kappa"] == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_cohen_textbook_table(project):
    # 2x2 table: both yes 20, A yes/B no 5, A no/B yes 10, both no 15: p_o = .7, p_e = .5
    p = project("cohen", "binary")
    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    p.load("items", _items(50))
    rows = []
    for i, (a, b) in enumerate(pairs):
        rows += [
            {"item_id": f"u{i + 1}", "annotator": "A", "field": "label", "value": a},
            {"item_id": f"u{i + 1}", "annotator": "B", "field": "label", "value": b},
        ]
    p.load("annotations", rows)
    f = p.agreement()["fields"]["label"]
    assert f["cohen_kappa_pairs"]["A|B"] == pytest.approx(0.4)
    assert f["cohen_kappa_pairs_n"]["A|B"] == 50
    assert f["percent_agreement"] == pytest.approx(0.7)
    assert f["fleiss_kappa"] is not None
    # Gwet AC1 for two raters: pi_yes = (25 + 30) / 100, p_e = 2 * .55 * .45, AC1 = (.7 - p_e)/(1 - p_e)
    pe = 2 * 0.55 * 0.45
    assert f["gwet_ac1"] == pytest.approx((0.7 - pe) / (1 - pe))


def test_weighted_cohen_matches_sklearn(project):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(4)
    a = rng.integers(1, 6, 40)
    b = np.clip(a + rng.integers(-1, 2, 40), 1, 5)
    p = project("w", "likert", {"min": 1, "max": 5})
    p.load("items", _items(40))
    p.load(
        "annotations",
        [
            {"item_id": f"u{i + 1}", "annotator": who, "field": "label", "value": int(v)}
            for who, vals in (("A", a), ("B", b))
            for i, v in enumerate(vals)
        ],
    )
    f = p.agreement()["fields"]["label"]
    for weights in ("linear", "quadratic"):
        expected = cohen_kappa_score(a, b, weights=weights, labels=[1, 2, 3, 4, 5])
        assert f[f"cohen_kappa_pairs_{weights}"]["A|B"] == pytest.approx(expected)


def test_kendall_scipy_docstring_example(project):
    # scipy.stats.kendalltau docstring: tau = -0.47140, p = 0.2827
    x, y = [12, 2, 1, 12, 2], [1, 4, 7, 1, 0]
    p = project("kendall", "likert", {"min": 0, "max": 7})
    p.load("items", _items(5))
    p.load(
        "annotations",
        [
            {"item_id": f"u{i + 1}", "annotator": "A", "field": "label", "value": v}
            for i, v in enumerate(y)
        ],
    )
    p.load(
        "scores",
        [
            {"item_id": f"u{i + 1}", "evaluator": "judge", "field": "label", "value": v}
            for i, v in enumerate(x)
        ],
    )
    doc = p.agreement()
    e = doc["evaluators"]["judge"]["label"]
    assert round(e["kendall"]["r"], 4) == -0.4714
    assert round(e["kendall"]["p"], 4) == 0.2827
    assert e["pearson"]["r"] == pytest.approx(stats.pearsonr(x, y).statistic)
    assert e["spearman"]["r"] == pytest.approx(stats.spearmanr(x, y).statistic)
    assert e["n"] == 5
    # one rater: human agreement is undefined, with the reason
    f = doc["fields"]["label"]
    assert f["krippendorff_alpha"]["nominal"] is None
    assert f["reasons"]["krippendorff_alpha.nominal"] == "only one rater"
    assert f["fleiss_kappa"] is None and f["reasons"]["fleiss_kappa"] == "only one rater"


def test_degenerate_cases_are_null_with_reason(project):
    p = project("deg", "binary")
    p.load("items", _items(4))
    # every label is 1: one category only; u4 has one rating only
    p.load(
        "annotations",
        [
            {"item_id": f"u{i}", "annotator": a, "field": "label", "value": 1}
            for i in (1, 2, 3)
            for a in "AB"
        ]
        + [{"item_id": "u4", "annotator": "A", "field": "label", "value": 1}],
    )
    p.load(
        "scores",
        [
            {"item_id": f"u{i}", "evaluator": "flat", "field": "label", "value": 0.5}
            for i in (1, 2, 3, 4)
        ],
    )
    doc = p.agreement()
    f = doc["fields"]["label"]
    assert f["krippendorff_alpha"]["nominal"] is None
    assert "only one value" in f["reasons"]["krippendorff_alpha.nominal"]
    assert f["fleiss_kappa"] is None and "one category" in f["reasons"]["fleiss_kappa"]
    assert f["cohen_kappa_pairs"]["A|B"] is None
    assert "same category" in f["reasons"]["cohen_kappa_pairs.A|B"]
    assert f["percent_agreement"] == 1.0 and f["n_pairable"] == 3
    e = doc["evaluators"]["flat"]["label"]
    for name in ("pearson", "spearman", "kendall"):
        assert e[name]["r"] is None and e[name]["ci"] is None
    assert "zero variance" in e["pearson"]["reason"]
    text = json.dumps(doc)
    assert "NaN" not in text and "Infinity" not in text


def test_no_pairable_unit(project):
    p = project("np", "likert", {"min": 1, "max": 5})
    p.load("items", _items(3))
    p.load(
        "annotations",
        [
            {"item_id": "u1", "annotator": "A", "field": "label", "value": 1},
            {"item_id": "u2", "annotator": "B", "field": "label", "value": 3},
        ],
    )
    f = p.agreement()["fields"]["label"]
    for level in ("nominal", "ordinal", "interval"):
        assert f["krippendorff_alpha"][level] is None
        assert "no pairable unit" in f["reasons"][f"krippendorff_alpha.{level}"]
    assert f["percent_agreement"] is None and f["cohen_kappa_pairs"]["A|B"] is None
    assert f["reasons"]["cohen_kappa_pairs.A|B"] == "no shared items"


def test_binary_decisions_against_majority_with_ties_left_out(project):
    p = project("bin", "binary")
    p.load("items", _items(6))
    human = {1: (1, 1, 0), 2: (1, 1, 1), 3: (0, 0, 1), 4: (0, 0, 0), 5: (1, 0), 6: (1, 1, 0)}
    p.load(
        "annotations",
        [
            {"item_id": f"u{i}", "annotator": a, "field": "label", "value": v}
            for i, labs in human.items()
            for a, v in zip("ABC", labs, strict=False)
        ],
    )
    decisions = {1: 1, 2: 0, 3: 1, 4: 0, 5: 1, 6: 1}  # u5 is a tie: left out
    p.load(
        "scores",
        [
            {"item_id": f"u{i}", "evaluator": "j", "field": "label", "value": v}
            for i, v in decisions.items()
        ],
    )
    b = p.agreement()["evaluators"]["j"]["label"]["binary"]
    # majority: u1 1, u2 1, u3 0, u4 0, u6 1 -> tp 2 (u1,u6), fn 1 (u2), fp 1 (u3), tn 1
    assert b["confusion"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 1}
    assert b["precision"] == pytest.approx(2 / 3) and b["recall"] == pytest.approx(2 / 3)
    assert b["f1"] == pytest.approx(2 / 3) and b["n"] == 5 and b["threshold"] is None
    p_o, p_e = 3 / 5, (3 / 5) * (3 / 5) + (2 / 5) * (2 / 5)
    assert b["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e))


def test_calibrated_threshold_on_dev_reported_on_test(project):
    p = project("cal", "binary")
    # dev: positives score >= .5, negatives <= .3: best F1 = 1 from 0.32 to 0.5 -> lowest
    dev = [(0.1, 0), (0.3, 0), (0.55, 1), (0.9, 1)]
    test = [(0.2, 0), (0.4, 1), (0.6, 1), (0.7, 0), (0.95, 1)]
    rows = [(f"d{i}", "dev", s, g) for i, (s, g) in enumerate(dev)] + [
        (f"t{i}", "test", s, g) for i, (s, g) in enumerate(test)
    ]
    p.load("items", [{"item_id": i, "text": "x", "split": sp} for i, sp, _, _ in rows])
    p.load(
        "annotations",
        [
            {"item_id": i, "annotator": a, "field": "label", "value": g}
            for i, _, _, g in rows
            for a in "AB"
        ],
    )
    p.load(
        "scores",
        [{"item_id": i, "evaluator": "sim", "field": "label", "value": s} for i, _, s, _ in rows],
    )
    doc = p.agreement()
    b = doc["evaluators"]["sim"]["label"]["binary"]
    grid = np.linspace(0.01, 1.0, 30)
    expected_t = grid[(grid > 0.3) & (grid <= 0.55)].min()
    assert b["threshold"] == pytest.approx(expected_t) and b["split"] == "test"
    # test decisions at ~0.35: .2->0 .4->1 .6->1 .7->1 .95->1 => tp 3, fp 1, fn 0, tn 1
    assert b["confusion"] == {"tp": 3, "fp": 1, "fn": 0, "tn": 1}
    assert b["precision"] == pytest.approx(0.75) and b["recall"] == 1.0
    assert b["n"] == 5 and b["n_dev"] == 4 and b["dev_f1"] == 1.0
    row = doc["calibrated"]["label"][0]
    assert row["evaluator"] == "sim" and row["f1"] == pytest.approx(6 / 7)


def _bias_project(project, gens, judge="gpt-4", settings=None):
    """Eight actionability items by ``gens``, humans 0 everywhere, two runs of ``judge``."""
    p = project("act-families" if settings else "act", "actionability", settings)
    p.load(
        "items",
        [
            {
                "item_id": f"u{i}",
                "claim": "c",
                "evidence": "e",
                "label": "false",
                "explanation": "x",
                "generator": g,
            }
            for i, g in enumerate(gens)
        ],
    )
    # human rubric 0/0/0 -> actionability 0 on every item (two annotators)
    p.load(
        "annotations",
        [
            {"item_id": f"u{i}", "annotator": a, "field": f, "value": 0}
            for i in range(8)
            for a in "AB"
            for f in ("errors_detected", "errors_corrected", "sources")
        ],
    )
    # run 0: gpt items 5,5,3,1 ; mistral 2,0,0,0 -> over: 3 own, 1 other, under 0
    # run 1: gpt items 5,1,3,1 ; mistral 0,0,0,0 -> over: 2 own, 0 other
    run0 = [5, 5, 3, 1, 2, 0, 0, 0]
    run1 = [5, 1, 3, 1, 0, 0, 0, 0]
    p.load(
        "scores",
        [
            {
                "item_id": f"u{i}",
                "evaluator": "geval",
                "field": "actionability",
                "value": v,
                "judge_model": judge,
                "run": r,
            }
            for r, vals in enumerate((run0, run1))
            for i, v in enumerate(vals)
        ],
    )
    return p.agreement()["evaluators"]["geval"]["actionability"]["bias"]


def test_ego_centric_bias_with_runs_and_fisher(project):
    b = _bias_project(project, ["gpt-4"] * 4 + ["mistral"] * 4)
    assert b["over_by_run"] == [4, 2] and b["over"] == 3.0 and b["under"] == 0.0
    assert b["over_own"] == 2.5 and b["n_own"] == 4 and b["over_other"] == 0.5
    assert b["n_other"] == 4 and b["n_runs"] == 2
    # Fisher on run-mean scores: gpt 5,3,3,1 -> 3 over; mistral 1,0,0,0 -> 0 over
    assert b["fisher_table"] == [[3, 1], [0, 4]]
    assert b["fisher_p"] == pytest.approx(stats.fisher_exact([[3, 1], [0, 4]]).pvalue)
    # FinGrAct's headline, the own-model counts, leads the JSON; exact name match
    assert list(b)[:5] == ["over_own", "under_own", "n_own", "own_match", "own_generators"]
    assert b["own_match"] == "exact" and b["own_generators"] == ["gpt-4"]


def test_model_families_make_a_dated_generator_the_judges_own(project):
    gens = ["gpt-4-1106-preview"] * 4 + ["mistral"] * 4
    b = _bias_project(project, gens)  # exact equality: gpt-4 never equals the dated name
    assert b["n_own"] == 0 and b["over_own"] is None and b["own_match"] is None
    families = {"model_families": {"gpt-4-1106-preview": "gpt-4"}}
    b = _bias_project(project, gens, settings=families)
    assert b["over_own"] == 2.5 and b["n_own"] == 4 and b["over_other"] == 0.5
    assert b["own_match"] == "family" and b["own_generators"] == ["gpt-4-1106-preview"]
    assert b["fisher_table"] == [[3, 1], [0, 4]]


def test_model_families_setting_is_checked(project):
    from kinds import get_kind
    from kinds.base import ValidationError

    kind = get_kind("actionability")
    with pytest.raises(ValidationError, match="'model_families' must map model names"):
        kind.validate_settings({"model_families": ["gpt-4"]})
    with pytest.raises(ValidationError, match="'model_families' must map model names"):
        kind.validate_settings({"model_families": {"gpt-4-0613": 4}})
    ok = kind.validate_settings({"model_families": {"gpt-4-0613": "gpt-4"}})
    assert ok["model_families"] == {"gpt-4-0613": "gpt-4"}


def test_intent_match_per_fact_and_derived(project):
    p = project("im", "intent_match")
    p.load(
        "items",
        [
            {
                "item_id": "i1",
                "gold": "g",
                "predicted": "p",
                "gold_facts": '["a","b","c"]',
                "predicted_facts": '["x","y"]',
            },
            {
                "item_id": "i2",
                "gold": "g",
                "predicted": "p",
                "gold_facts": '["a","b"]',
                "predicted_facts": '["x"]',
            },
        ],
    )
    labels = {
        "A": {"i1": (["C", "C", "M"], ["C", "M"], 1), "i2": (["C", "M"], ["C"], 1)},
        "B": {"i1": (["C", "M", "M"], ["C", "M"], 0), "i2": (["C", "M"], ["M"], 1)},
    }
    rows = []
    for who, per_item in labels.items():
        for item, (g, pr, m) in per_item.items():
            rows += [
                {
                    "item_id": item,
                    "annotator": who,
                    "field": "gold_fact_labels",
                    "value": json.dumps(g),
                },
                {
                    "item_id": item,
                    "annotator": who,
                    "field": "predicted_fact_labels",
                    "value": json.dumps(pr),
                },
                {"item_id": item, "annotator": who, "field": "match", "value": m},
            ]
    p.load("annotations", rows)
    p.load(
        "scores",
        [
            {"item_id": "i1", "evaluator": "bifact", "field": "recall", "value": 0.5},
            {"item_id": "i2", "evaluator": "bifact", "field": "recall", "value": 0.4},
        ],
    )
    doc = p.agreement()
    gold = doc["fields"]["gold_fact_labels"]
    assert gold["unit"] == "fact" and gold["n_items"] == 5 and gold["n_pairable"] == 5
    # gold facts: agree on 4 of 5 facts
    assert gold["percent_agreement"] == pytest.approx(4 / 5)
    import krippendorff

    expected = krippendorff.alpha(
        reliability_data=[[1, 1, 0, 1, 0], [1, 0, 0, 1, 0]], level_of_measurement="nominal"
    )
    assert gold["krippendorff_alpha"]["nominal"] == pytest.approx(expected)
    pred = doc["fields"]["predicted_fact_labels"]
    assert pred["n_items"] == 3 and pred["percent_agreement"] == pytest.approx(2 / 3)
    recall = doc["derived"]["recall"]
    assert recall["n_pairable"] == 2 and recall["n_ratings"] == 4
    # recall per annotator: A i1 2/3, i2 1/2; B i1 1/3, i2 1/2 -> mean 0.5, 0.5
    e = doc["evaluators"]["bifact"]["recall"]
    assert e["n"] == 2 and e["pearson"]["r"] is None
    assert "fewer than 3 items" in e["pearson"]["reason"]


def test_reference_override_replaces_human_majority(tmp_path):
    import pandas as pd

    from agreement import build_document
    from annotation_store import Store
    from study_inputs.load import load_inputs

    store = Store(f"sqlite:///{tmp_path / 'o.db'}")
    store.create_project("o", "binary")
    store.upsert_items("o", [{"item_id": f"u{i}", "fields": {"text": "x"}} for i in range(4)])
    store.import_labels(
        "o",
        [
            {
                "item_id": f"u{i}",
                "annotator": a,
                "field": "label",
                "value": v,
                "status": "submitted",
            }
            for i, v in enumerate((1, 1, 0, 0))
            for a in "AB"
        ],
    )
    store.import_scores(
        "o",
        [
            {
                "item_id": f"u{i}",
                "evaluator": "j",
                "field": "label",
                "value": v,
                "judge_model": None,
                "run": 0,
            }
            for i, v in enumerate((1, 0, 0, 0))
        ],
    )
    plain = build_document(load_inputs(store, "o"), n_resamples=0)
    assert plain.evaluators["j"]["label"].binary.recall == 0.5
    ref = pd.DataFrame([{"item_id": "u1", "field": "label", "value": 0}])
    adjudicated = build_document(load_inputs(store, "o", ref), n_resamples=0)
    b = adjudicated.evaluators["j"]["label"].binary
    assert b.recall == 1.0 and b.precision == 1.0
    # human-human agreement does not change
    assert (
        adjudicated.fields["label"].stat("krippendorff_alpha", "nominal").value
        == plain.fields["label"].stat("krippendorff_alpha", "nominal").value
    )
    store.close()


def test_text_output_is_readable(project):
    p = project("txt", "likert", {"min": 1, "max": 5})
    p.load("items", _items(12))
    p.load("annotations", _matrix_rows(KRIPP))
    out = p.run("agreement", "txt", "--resamples", "0")
    assert "alpha nominal" in out and "0.743" in out and "Fleiss kappa" in out
