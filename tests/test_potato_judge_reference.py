"""The judge figures against Potato 2.12.1's own functions on the same seeded data.

tests/data/peers/potato_judge.json holds the data and the values Potato's functions give
on it, written by scripts/potato_judge_reference.py in .venv-peers (Potato is never
imported here). Each test computes the workbench's figure with its own code and compares.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from agreement import judge_probes
from agreement.alt_test import alt_test
from agreement.binary import compare, majority
from agreement.correlation import correlations
from agreement.label_judge import compare_labels, confidence_calibration

FIXTURE = Path(__file__).parent / "data" / "peers" / "potato_judge.json"
DOC = json.loads(FIXTURE.read_text())
DATA, REF = DOC["data"], DOC["reference"]


def test_the_reference_values_come_from_potato_2_12_1() -> None:
    assert DOC["potato"] == "2.12.1"
    assert sorted(REF) == ["binary60", "label60", "likert40", "pairwise40", "swap60"]


def _labels(
    people: dict[str, dict[str, Any]], code: dict[Any, float] | None = None
) -> pd.DataFrame:
    rows = [
        (item, who, code[v] if code else float(v))
        for who, labels in people.items()
        for item, v in labels.items()
    ]
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def _assert_alt_test_equal(ours: Any, potato: dict[str, Any]) -> None:
    assert potato["insufficient"] is None
    assert ours.winning_rate == pytest.approx(potato["winning_rate"], abs=1e-12)
    assert ours.advantage == pytest.approx(potato["advantage_probability"], abs=1e-12)
    assert ours.passed is potato["passed"]
    theirs = {a["annotator_id"]: a for a in potato["per_annotator"]}
    assert sorted(a.annotator for a in ours.annotators) == sorted(theirs)
    for a in ours.annotators:
        t = theirs[a.annotator]
        assert a.n == t["n_items"]
        assert a.rho_f == pytest.approx(t["llm_advantage"], abs=1e-12)
        assert a.rho_h == pytest.approx(t["human_advantage"], abs=1e-12)
        assert a.p == pytest.approx(t["p_value"], rel=1e-9, abs=1e-12)
        assert a.p_adjusted == pytest.approx(t["p_value_adjusted"], rel=1e-9, abs=1e-12)
        assert a.rejected is t["rejected"]
    assert ours.left_out == {s["annotator_id"]: s["n_items"] for s in potato["skipped_annotators"]}


# --- the 60-item binary project with four annotators -------------------------------


def _binary() -> tuple[list[str], np.ndarray, np.ndarray, dict[str, Any]]:
    d = DATA["binary60"]
    items = sorted(d["samples"])
    prob = np.array([np.mean(d["samples"][i]) for i in items])
    gold = np.array(
        [majority([p[i] for p in d["people"].values() if i in p]) for i in items], dtype=float
    )
    return items, prob, gold, d


def test_binary_kappa_equals_potatos() -> None:
    items, prob, gold, _ = _binary()
    ours = compare((prob >= 0.5).astype(int), gold.astype(int))
    assert ours.n == REF["binary60"]["n"] == 60
    assert ours.kappa == pytest.approx(REF["binary60"]["kappa"], abs=1e-12)


def test_brier_and_ece_of_p_yes_equal_potatos_on_the_same_bins() -> None:
    _, prob, gold, _ = _binary()
    ours = judge_probes.calibration(prob, gold)
    ref = REF["binary60"]
    assert ours["n"] == 60
    assert ours["brier"] == pytest.approx(ref["brier"], abs=1e-12)
    assert ours["ece"] == pytest.approx(ref["ece_p_yes"], abs=1e-12)
    # Vote shares such as 0.6 and 0.7 sit on a bin edge: they belong to the bin they open.
    assert [(b["lo"], b["n"]) for b in ours["bins"]] == [
        (pytest.approx(b["lo"]), b["n"]) for b in ref["bins_p_yes"]
    ]


def test_ece_of_the_judges_own_answer_is_potatos_definition() -> None:
    _, prob, gold, _ = _binary()
    own = confidence_calibration(np.maximum(prob, 1 - prob), (prob >= 0.5) == (gold >= 0.5))
    assert own["ece"] == pytest.approx(REF["binary60"]["ece_own_answer"], abs=1e-12)


def test_binary_length_bias_and_self_consistency_equal_potatos() -> None:
    items, prob, _, d = _binary()
    mean = np.array([np.mean([p[i] for p in d["people"].values() if i in p]) for i in items])
    length = np.array([d["length"][i] for i in items], dtype=float)
    bias = judge_probes.length_bias(prob - mean, length, n_resamples=0)
    assert bias["n"] == 60
    assert bias["spearman"]["r"] == pytest.approx(REF["binary60"]["length_spearman"], abs=1e-12)
    consistency = judge_probes.self_consistency([d["samples"][i] for i in items], True)
    ref = REF["binary60"]["self_consistency"]
    assert (consistency["n"], consistency["samples"]) == (ref["n"], 10)
    assert consistency["unanimous"] == pytest.approx(ref["unanimous"], abs=1e-12)
    assert consistency["alpha"] == pytest.approx(ref["alpha"], abs=1e-9)


ALT_CASES = ["0.2", "0.1", "wilcoxon 0.2", "wilcoxon 0.1"]


def _alt_args(case: str) -> dict[str, Any]:
    test, _, eps = case.rpartition(" ")
    return {"epsilon": float(eps), "test": test or "ttest"}


@pytest.mark.parametrize("case", ALT_CASES)
def test_binary_alt_test_equals_potatos(case: str) -> None:
    items, prob, _, d = _binary()
    judge = pd.Series((prob >= 0.5).astype(float), index=items)
    ours = alt_test(judge, _labels(d["people"]), discrete=True, **_alt_args(case))
    assert ours.test == _alt_args(case)["test"]
    _assert_alt_test_equal(ours, REF["binary60"]["alt_test"][case])


# --- the 40-item 1-5 project ---------------------------------------------------------


def _likert() -> tuple[list[str], np.ndarray, np.ndarray, dict[str, Any]]:
    d = DATA["likert40"]
    items = sorted(d["samples"])
    judge = np.array([np.mean(d["samples"][i]) for i in items])
    human = np.array([np.mean([p[i] for p in d["people"].values() if i in p]) for i in items])
    return items, judge, human, d


def test_likert_correlations_equal_potatos() -> None:
    _, judge, human, _ = _likert()
    ours = correlations(judge, human, n_resamples=0)
    ref = REF["likert40"]
    assert ours["pearson"].n == ref["n"] == 40
    assert ours["pearson"].r == pytest.approx(ref["pearson"], abs=1e-12)
    assert ours["spearman"].r == pytest.approx(ref["spearman"], abs=1e-12)


def test_likert_length_bias_and_self_consistency_equal_potatos() -> None:
    items, judge, human, d = _likert()
    length = np.array([d["length"][i] for i in items], dtype=float)
    bias = judge_probes.length_bias(judge - human, length, n_resamples=0)
    assert bias["spearman"]["r"] == pytest.approx(REF["likert40"]["length_spearman"], abs=1e-12)
    consistency = judge_probes.self_consistency([d["samples"][i] for i in items], False)
    ref = REF["likert40"]["self_consistency"]
    assert consistency["n"] == ref["n"] == 40
    assert consistency["unanimous"] == pytest.approx(ref["unanimous"], abs=1e-12)
    assert consistency["alpha"] == pytest.approx(ref["alpha"], abs=1e-9)


@pytest.mark.parametrize("case", ALT_CASES)
def test_likert_alt_test_with_rmse_equals_potatos(case: str) -> None:
    items, judge, _, d = _likert()
    ours = alt_test(
        pd.Series(judge, index=items), _labels(d["people"]), discrete=False, **_alt_args(case)
    )
    _assert_alt_test_equal(ours, REF["likert40"]["alt_test"][case])
    assert ours.left_out == {"dan": 25}


# --- a label (categorical) judge -----------------------------------------------------


def _label_judge() -> tuple[dict[str, str], dict[str, float], dict[str, str], dict[str, Any]]:
    from alignment.categorical import human_majority

    d = DATA["label60"]
    judge, conf = {}, {}
    for item, samples in d["samples"].items():
        # The most frequent sample and the share of samples that gave it.
        top = max(sorted(set(samples)), key=samples.count)
        judge[item], conf[item] = top, samples.count(top) / len(samples)
    labels = _labels(d["people"], {c: c for c in d["labels"]})
    return judge, conf, human_majority(labels), d


def test_label_judge_kappa_agreement_and_confusion_equal_potatos() -> None:
    judge, _, human, d = _label_judge()
    ref = REF["label60"]
    assert judge == ref["judge_label"]
    ours = compare_labels(judge, human, d["labels"], n_resamples=0, seed=0)
    assert ours["n"] == ref["n"]
    assert ours["kappa"] == pytest.approx(ref["kappa"], abs=1e-12)
    assert round(ours["kappa"], 3) == ref["kappa_rounded"]
    assert round(ours["accuracy"], 3) == ref["agreement_rate"]
    cats = ours["confusion"]["labels"]
    matrix = ours["confusion"]["matrix"]
    theirs = {(h, j): n for h, row in ref["confusion"].items() for j, n in row.items()}
    mine = {
        (cats[r], cats[c]): matrix[r][c]
        for r in range(len(cats))
        for c in range(len(cats))
        if matrix[r][c]
    }
    assert mine == theirs


def test_label_judge_calibration_equals_potatos() -> None:
    judge, conf, human, _ = _label_judge()
    items = sorted(i for i in judge if i in human)
    ours = confidence_calibration(
        np.array([conf[i] for i in items]), np.array([judge[i] == human[i] for i in items])
    )
    ref = REF["label60"]
    assert ours["n"] == ref["n"]
    assert ours["ece"] == pytest.approx(ref["ece"], abs=1e-12)
    assert [(b["lo"], b["n"]) for b in ours["bins"]] == [
        (pytest.approx(b["lo"]), b["n"]) for b in ref["bins"]
    ]


@pytest.mark.parametrize("epsilon", ["0.2", "0.1"])
def test_label_judge_alt_test_in_accuracy_form_equals_potatos(epsilon: str) -> None:
    from alignment.categorical import _alt_test

    judge, _, _, d = _label_judge()
    labels = _labels(d["people"], {c: c for c in d["labels"]})
    ours = _alt_test(judge, labels, d["labels"], float(epsilon))
    theirs = REF["label60"]["alt_test"][epsilon]
    assert ours["winning_rate"] == pytest.approx(theirs["winning_rate"], abs=1e-12)
    assert ours["advantage"] == pytest.approx(theirs["advantage_probability"], abs=1e-12)
    by_name = {a["annotator_id"]: a for a in theirs["per_annotator"]}
    for a in ours["annotators"]:
        assert a["p"] == pytest.approx(by_name[a["annotator"]]["p_value"], abs=1e-12)
        assert a["rejected"] is by_name[a["annotator"]]["rejected"]


# --- position swap -------------------------------------------------------------------


def test_swap_share_of_changed_decisions_equals_potatos_flip_rate() -> None:
    d = DATA["swap60"]
    ours = judge_probes.position_swap(
        {i: float(v) for i, v in d["plain"].items()},
        {i: float(v) for i, v in d["swapped"].items()},
        discrete=True,
    )
    ref = REF["swap60"]
    assert ours["n"] == ref["n"] == 60
    assert ours["n_changed"] == ref["flips"] > 0
    assert round(ours["changed"], 4) == ref["flip_rate"]


# --- the same binary project through the store and the alignment table --------------


def test_alignment_table_of_the_binary_project_equals_potatos(sqlite_url: str) -> None:
    """The seeded binary project stored as items, people's labels and one judge run (P(yes)
    and its ten samples in the details): the alignment document's figures are Potato's."""
    from alignment.table import alignment_table
    from annotation_store import Store
    from tests.alignment_fixtures import add_run

    items, prob, _, d = _binary()
    store = Store(sqlite_url)
    store.create_project("b60", "binary")
    store.upsert_items(
        "b60", [{"item_id": i, "fields": {"text": "x" * d["length"][i]}} for i in items]
    )
    store.import_labels(
        "b60",
        [
            {"item_id": i, "annotator": who, "field": "label", "value": v, "status": "submitted"}
            for who, labels in d["people"].items()
            for i, v in labels.items()
        ],
    )
    details = {
        i: {"probability": float(p), "samples": d["samples"][i]}
        for i, p in zip(items, prob, strict=True)
    }
    scores = {i: float(p >= 0.5) for i, p in zip(items, prob, strict=True)}
    add_run(store, "1", scores, details=details, project="b60")
    ref = REF["binary60"]
    for eps in ("0.2", "0.1"):
        [row] = alignment_table(store, "b60", "label", n_resamples=0, epsilon=float(eps))[
            "versions"
        ]
        alt = row["probes"]["alt_test"]
        theirs = ref["alt_test"][eps]
        assert alt["winning_rate"] == pytest.approx(theirs["winning_rate"], abs=1e-12)
        assert alt["advantage"] == pytest.approx(theirs["advantage_probability"], abs=1e-12)
        by_name = {a["annotator_id"]: a for a in theirs["per_annotator"]}
        assert sorted(a["annotator"] for a in alt["annotators"]) == sorted(by_name)
        assert [a["rejected"] for a in alt["annotators"]] == [
            by_name[a["annotator"]]["rejected"] for a in alt["annotators"]
        ]
        for a in alt["annotators"]:
            assert a["p"] == pytest.approx(by_name[a["annotator"]]["p_value"], abs=1e-12)
            assert a["p_adjusted"] == pytest.approx(
                by_name[a["annotator"]]["p_value_adjusted"], abs=1e-12
            )
    assert row["n"] == row["headline"]["n"] == 60
    assert row["headline"]["value"] == pytest.approx(ref["kappa"], abs=1e-12)
    p = row["probes"]
    assert p["calibration"]["brier"] == pytest.approx(ref["brier"], abs=1e-12)
    assert p["calibration"]["ece"] == pytest.approx(ref["ece_p_yes"], abs=1e-12)
    assert p["calibration"]["own_answer"]["ece"] == pytest.approx(ref["ece_own_answer"], abs=1e-12)
    assert p["length_bias"]["spearman"]["r"] == pytest.approx(
        ref["length_spearman_decision"], abs=1e-12
    )
    assert p["self_consistency"]["unanimous"] == pytest.approx(
        ref["self_consistency"]["unanimous"], abs=1e-12
    )
    assert p["self_consistency"]["alpha"] == pytest.approx(
        ref["self_consistency"]["alpha"], abs=1e-9
    )
    store.close()
