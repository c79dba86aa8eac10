"""The alignment table, the leakage guard, the probes read from stored results, the
version diff and ``cli.py alignment`` on the toy project (two versions of judge:toy)."""

from __future__ import annotations

import json

import pytest

from alignment.diff import default_pair, diff_summary, fact_changes, version_diff
from alignment.inputs import load_field
from alignment.table import alignment_table
from annotation_store import Store
from commands import main
from tests.alignment_fixtures import FEW_SHOT, PEOPLE, build_toy, human, v1_score, v2_score


def cohen(pred: list[int], gold: list[int]) -> float:
    n = len(pred)
    p_o = sum(p == g for p, g in zip(pred, gold, strict=True)) / n
    p1, g1 = sum(pred) / n, sum(gold) / n
    p_e = p1 * g1 + (1 - p1) * (1 - g1)
    return (p_o - p_e) / (1 - p_e)


def majority(k: int) -> int:
    return int(sum(human(k, w) for w in range(len(PEOPLE))) >= 2)


@pytest.fixture
def toy(store: Store) -> Store:
    build_toy(store)
    return store


def _rows(doc: dict) -> dict[str, dict]:
    return {r["label"]: r for r in doc["versions"]}


def test_one_row_per_version_with_kappa_failures_cost_and_exclusions(toy: Store) -> None:
    doc = alignment_table(toy, "toy", n_resamples=200)
    assert doc["field"] == "label" and doc["headline"] == "kappa"
    rows = _rows(doc)
    assert list(rows) == ["judge:toy v1", "judge:toy v2", "judge:toy v2 (texts swapped)"]
    v1, v2 = rows["judge:toy v1"], rows["judge:toy v2"]
    # v1: item 39 failed; 39 items compared
    assert v1["n"] == 39 and v1["n_failed"] == 1 and v1["failure_rate"] == pytest.approx(1 / 40)
    assert v1["mean_cost"] == pytest.approx(0.001 * 39 / 40)
    assert v1["mean_tokens_in"] == pytest.approx(100 * 39 / 40)
    ks = range(39)
    assert v1["headline"]["value"] == pytest.approx(
        cohen([v1_score(k) for k in ks], [majority(k) for k in ks])
    )
    lo, hi = v1["headline"]["ci"]
    assert lo < v1["headline"]["value"] < hi
    assert v1["excluded"] == {"n": 0, "reason": None, "item_ids": [], "reasons": {}}
    # v2: its two few-shot items are out of every figure, and the row says so
    assert v2["excluded"]["n"] == 2 and v2["excluded"]["item_ids"] == FEW_SHOT
    assert "few-shot" in v2["excluded"]["reason"]
    assert v2["n"] == 38 and v2["n_results"] == 38
    ks2 = range(2, 40)
    assert v2["headline"]["value"] == pytest.approx(
        cohen([v2_score(k) for k in ks2], [majority(k) for k in ks2])
    )
    assert v2["binary"]["n"] == 38 and v2["binary"]["kappa"] == pytest.approx(
        v2["headline"]["value"]
    )
    assert v2["date"] and v2["model"] == "toy-model"


def test_probes_read_samples_probability_swap_and_alt_test(toy: Store) -> None:
    rows = _rows(alignment_table(toy, "toy", n_resamples=100))
    v1, v2 = rows["judge:toy v1"]["probes"], rows["judge:toy v2"]["probes"]
    assert v1["self_consistency"]["n"] == 0 and v1["calibration"]["reason"]
    assert v2["self_consistency"]["n"] == 38
    assert v2["self_consistency"]["unanimous"] == pytest.approx(37 / 38)
    # probability 0.9 for a positive decision, 0.2 for a negative one (items 2..39)
    ks = range(2, 40)
    gold = [majority(k) for k in ks]
    prob = [0.9 if v2_score(k) else 0.2 for k in ks]
    brier = sum((p - g) ** 2 for p, g in zip(prob, gold, strict=True)) / len(ks)
    assert v2["calibration"]["brier"] == pytest.approx(brier)
    # the swapped run flips items 10, 20, 30 (every 10th; 0 is a few-shot item)
    swap = v2["position_swap"]
    assert swap["partner"] == "judge:toy v2 (texts swapped)"
    assert swap["n"] == 38 and swap["changed"] == pytest.approx(3 / 38)
    assert v1["position_swap"] == {"n": 0, "reason": "no swapped run"}
    assert v2["length_bias"]["text_field"] == "text" and v2["length_bias"]["n"] == 38
    assert v2["alt_test"]["winning_rate"] is not None
    assert {a["n"] for a in v2["alt_test"]["annotators"]} == {38}
    assert v2["ego_bias"]["reason"]  # binary field: no graded bias counts


def test_version_diff_moves_and_flips(toy: Store) -> None:
    fi = load_field(toy, "toy")
    diff = version_diff(fi, "judge:toy v1", "judge:toy v2").set_index("item_id")
    # both versions' few-shot items are out; i39 failed in v1
    assert "i00" not in diff.index and "i01" not in diff.index and "i39" not in diff.index
    # item 3: v1 wrong (every 3rd), v2 right -> toward the humans, a flipped decision
    row = diff.loc["i03"]
    assert row["movement"] == "toward" and row["flipped"]
    assert (
        row["reasoning_a"] == "v1 thinks 0 for i03" and row["reasoning_b"] == "v2 thinks 1 for i03"
    )
    assert diff.loc["i09", "movement"] == "unchanged"  # both wrong
    summary = diff_summary(diff.reset_index())
    assert summary["n"] == 37
    assert summary["away"] == 0 and summary["toward"] == summary["flipped"]


def test_the_diff_opens_on_the_last_two_versions_of_the_same_judge() -> None:
    def rows(*evaluators: str) -> list[dict[str, str]]:
        return [{"evaluator": e} for e in evaluators]

    # an imported baseline listed first must not be diffed against the judge's v1
    assert default_pair(rows("embedding", "judge:a", "judge:a")) == (1, 2)
    assert default_pair(rows("judge:a", "judge:a", "judge:a", "judge:b")) == (1, 2)
    assert default_pair(rows("judge:a", "judge:b", "judge:a")) == (0, 2)
    assert default_pair(rows("bleu", "chrf")) == (0, 1)  # no evaluator with two versions


def test_fact_changes_lists_labels_that_changed() -> None:
    a = {"gold_facts": [{"fact": "alarm", "label": "C"}, {"fact": "7am", "label": "M"}]}
    b = {"gold_facts": [{"fact": "alarm", "label": "C"}, {"fact": "7am", "label": "C"}]}
    assert fact_changes(a, b) == [{"side": "gold_facts", "fact": "7am", "a": "M", "b": "C"}]


def test_cli_alignment_json_and_errors(toy: Store, sqlite_url: str, capsys) -> None:
    assert main(["--db", sqlite_url, "alignment", "toy", "--json", "--resamples", "50"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = _rows(doc)
    assert rows["judge:toy v1"]["n"] == 39 and rows["judge:toy v2"]["excluded"]["n"] == 2
    assert all(len(r["headline"]["ci"]) == 2 for r in doc["versions"])
    assert main(["--db", sqlite_url, "alignment", "toy", "--field", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'nope' is not a numeric human field" in err and len(err.splitlines()) == 1
    code = main(
        ["--db", sqlite_url, "alignment", "toy", "--diff", "judge:toy v1", "judge:toy v2", "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["n"] == 37
    assert main(["--db", sqlite_url, "alignment", "toy", "--resamples", "0"]) == 0
    assert "judge:toy v2: 38 items compared; kappa" in capsys.readouterr().out


def test_agreement_document_leaves_few_shot_items_out_and_says_so(toy: Store) -> None:
    from reports.data import agreement_document

    doc = agreement_document(toy, "toy", n_resamples=0, timeline=False)
    excluded = doc.meta["excluded"]
    assert len(excluded) == 2  # v2 and its swapped run
    assert all(e["n_excluded"] == 2 and e["item_ids"] == FEW_SHOT for e in excluded)
    by_n = sorted(by_field["label"].n for by_field in doc.evaluators.values())
    assert by_n == [38, 38, 39]


FLIGHT = {
    "gold": "Book a flight to Paris on Monday",
    "predicted": "Book a flight to Rome",
    "gold_facts": ["wants a flight", "to Paris", "on Monday"],
    "predicted_facts": ["wants a flight", "to Rome"],
}


def _facts(gold: list[str], pred: list[str]) -> dict:
    return {
        "gold_facts": [
            {"fact": f, "label": lab, "reasoning": "r"}
            for f, lab in zip(FLIGHT["gold_facts"], gold, strict=True)
        ],
        "predicted_facts": [
            {"fact": f, "label": lab, "reasoning": "r"}
            for f, lab in zip(FLIGHT["predicted_facts"], pred, strict=True)
        ],
    }


def test_intent_match_diff_lists_the_facts_whose_label_changed(store: Store) -> None:
    from tests.alignment_fixtures import add_run

    store.create_project("im", "intent_match")
    store.upsert_items("im", [{"item_id": i, "fields": FLIGHT} for i in ("a", "b", "c")])
    store.import_labels(
        "im",
        [
            {"item_id": i, "annotator": who, "field": f, "value": v, "status": "submitted"}
            for i in ("a", "b", "c")
            for who in PEOPLE
            for f, v in (
                ("gold_fact_labels", ["C", "M", "M"]),
                ("predicted_fact_labels", ["C", "M"]),
                ("match", 0),
            )
        ],
    )
    # people: recall 1/3, precision 1/2, F1 0.4 on every item
    details_1 = {i: _facts(["C", "C", "C"], ["C", "C"]) for i in ("a", "b", "c")}
    details_2 = {**details_1, "a": _facts(["C", "M", "M"], ["C", "M"])}
    add_run(store, "1", {"a": 1.0, "b": 1.0, "c": 1.0}, details=details_1, field="f1", project="im")
    add_run(store, "2", {"a": 0.4, "b": 1.0, "c": 1.0}, details=details_2, field="f1", project="im")
    diff = version_diff(load_field(store, "im", "f1"), "judge:toy v1", "judge:toy v2")
    row = diff.set_index("item_id").loc["a"]
    assert row["movement"] == "toward" and row["human"] == pytest.approx(0.4)
    assert row["fact_changes"] == [
        {"side": "gold_facts", "fact": "to Paris", "a": "C", "b": "M"},
        {"side": "gold_facts", "fact": "on Monday", "a": "C", "b": "M"},
        {"side": "predicted_facts", "fact": "to Rome", "a": "C", "b": "M"},
    ]
    assert diff.set_index("item_id").loc["b", "fact_changes"] == []
    doc = alignment_table(store, "im", "f1", n_resamples=0)
    assert doc["field_type"] == "derived" and doc["headline"] == "pearson"
    assert [r["n"] for r in doc["versions"]] == [3, 3]


def test_python_api_names_the_alignment_functions(toy: Store) -> None:
    import workbench_api as wb

    data = wb.diff_versions(toy, "toy", "judge:toy v1", "judge:toy v2")
    assert data["field"] == "label" and data["summary"]["n"] == 37
    assert wb.alignment_table(toy, "toy", n_resamples=0)["versions"][0]["n"] == 39


def test_a_version_whose_every_reply_failed_is_a_row_with_no_figures(toy: Store) -> None:
    from alignment.figures import headline_chart
    from tests.alignment_fixtures import add_run, item_ids

    add_run(toy, "3", {i: 1 for i in item_ids()}, failed=tuple(item_ids()))
    doc = alignment_table(toy, "toy", n_resamples=50)
    v3 = _rows(doc)["judge:toy v3"]
    assert v3["n"] == 0 and v3["failure_rate"] == 1.0 and v3["headline"]["value"] is None
    assert v3["probes"]["alt_test"]["reason"].startswith("not enough data")
    # the chart draws the versions that have a headline figure, with their CIs
    trace = headline_chart(doc).data[0]
    assert list(trace.x) == ["judge:toy v1", "judge:toy v2", "judge:toy v2 (texts swapped)"]
    v1 = _rows(doc)["judge:toy v1"]["headline"]
    assert trace.y[0] == pytest.approx(v1["value"])
    assert trace.error_y.array[0] == pytest.approx(v1["ci"][1] - v1["value"])


def test_alt_test_refuses_scores_off_the_fields_scale(store: Store) -> None:
    from tests.alignment_fixtures import PROJECT, add_run, item_ids

    build_toy(store, swap=False)
    add_run(store, "5", {i: 4.0 for i in item_ids()}, project=PROJECT)  # a 1-5 grade
    alt = _rows(alignment_table(store, "toy", n_resamples=0))["judge:toy v5"]["probes"]["alt_test"]
    assert alt["winning_rate"] is None and "not on the field's scale 0..1" in alt["reason"]
