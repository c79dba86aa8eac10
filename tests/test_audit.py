"""The audit table and the fact grid: known answers on small hand-made projects."""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, datetime

import pandas as pd
import pytest

from annotation_store import RunInfo, Store
from annotation_store.label_frames import majority
from audit.analysis import (
    AGREE,
    EVAL_FAILED,
    HUMANS_DISAGREE,
    METRIC_DIFFERS,
    NO_LABELS,
    build_audit_table,
    comparable_fields,
    fact_grid,
    field_scales,
    filter_audit,
    human_scores,
    latest_results,
)
from kinds import get_kind

INTENT = get_kind("intent_match")
ACTION = get_kind("actionability")


def _intent_project(store: Store) -> None:
    store.create_project("im", "intent_match")
    items = []
    for i in range(4):
        items.append(
            {
                "item_id": f"i{i}",
                "split": "test" if i < 2 else "dev",
                "generator": "gpt" if i % 2 == 0 else "llama",
                "fields": {
                    "gold": f"gold {i}",
                    "predicted": f"pred {i}",
                    "gold_facts": ["a", "b"],
                    "predicted_facts": ["x", "y"],
                },
            }
        )
    store.upsert_items("im", items)
    # f1 per annotator: i0 all agree on f1=1; i1 all agree on f1=0.5 (recall 1/2, precision
    # 1/2); i2 people split (1.0, 1.0, 0.0); i3 nobody labelled.
    labels = {
        "i0": [(["C", "C"], ["C", "C"])] * 3,
        "i1": [(["C", "M"], ["C", "M"])] * 3,
        "i2": [(["C", "C"], ["C", "C"]), (["C", "C"], ["C", "C"]), (["M", "M"], ["M", "M"])],
    }
    rows = []
    for item_id, per in labels.items():
        for who, (gold, pred) in zip(["ann", "bob", "cat"], per, strict=True):
            rows += [
                {
                    "item_id": item_id,
                    "annotator": who,
                    "field": "gold_fact_labels",
                    "value": gold,
                    "status": "submitted",
                },
                {
                    "item_id": item_id,
                    "annotator": who,
                    "field": "predicted_fact_labels",
                    "value": pred,
                    "status": "submitted",
                },
                {
                    "item_id": item_id,
                    "annotator": who,
                    "field": "match",
                    "value": 1,
                    "status": "submitted",
                },
            ]
    store.import_labels("im", rows)
    # bifact: i0 0.9 (agrees), i1 1.0 (differs by 0.5), i2 0.5; two runs on i1 to check the mean
    scores = [("i0", 0, 0.9), ("i1", 0, 0.9), ("i1", 1, 1.1 - 0.0), ("i2", 0, 0.5)]
    store.import_scores(
        "im",
        [
            {
                "item_id": i,
                "evaluator": "bifact",
                "field": "f1",
                "value": v,
                "judge_model": "m",
                "run": r,
            }
            for i, r, v in scores
        ],
    )


def _table(store: Store, **kw):
    info = store.project("im")
    return build_audit_table(
        INTENT,
        info.settings,
        store.items("im"),
        store.annotations_frame("im"),
        store.scores_frame("im"),
        store.results_frame("im", include_failed=True),
        "f1",
        **kw,
    )


def test_audit_table_compares_evaluator_with_people_and_sorts_by_disagreement(store: Store) -> None:
    _intent_project(store)
    table = _table(store)
    frame = table.frame.set_index("item_id")
    assert table.evaluators == ["bifact"]
    # i1: people f1 = 0.5 (all three); bifact mean over two runs = (0.9 + 1.1) / 2 = 1.0
    assert frame.loc["i1", "human_mean"] == pytest.approx(0.5)
    assert frame.loc["i1", "bifact"] == pytest.approx(1.0)
    assert frame.loc["i1", "Δ bifact"] == pytest.approx(0.5)
    assert frame.loc["i1", "category"] == METRIC_DIFFERS
    # i0: 0.9 - 1.0 = -0.1 -> agree
    assert frame.loc["i0", "Δ bifact"] == pytest.approx(-0.1)
    assert frame.loc["i0", "category"] == AGREE
    # i2: people 1, 1, 0 -> mean 2/3, majority 1.0, spread 1.0 -> humans disagree
    assert frame.loc["i2", "human_mean"] == pytest.approx(2 / 3)
    assert frame.loc["i2", "human_majority"] == pytest.approx(1.0)
    assert frame.loc["i2", "human_spread"] == pytest.approx(1.0)
    assert frame.loc["i2", "category"] == HUMANS_DISAGREE
    assert frame.loc["i3", "category"] == NO_LABELS
    assert math.isnan(frame.loc["i3", "disagreement"])
    # sorted by |delta|, largest first; the item without a score comes last
    assert list(table.frame["item_id"]) == ["i1", "i2", "i0", "i3"]


def _intent_table(store: Store, results: pd.DataFrame):
    """The audit table of the intent-match project "im" on F1, with ``results``' statuses."""
    info = store.project("im")
    return build_audit_table(
        INTENT,
        info.settings,
        store.items("im"),
        store.annotations_frame("im"),
        store.scores_frame("im"),
        results,
        "f1",
    )


def test_a_failed_result_names_the_row(store: Store) -> None:
    _intent_project(store)
    results = pd.DataFrame(
        [{"item_id": "i3", "evaluator": "bifact", "model": "m", "status": "failed"}]
    )
    table = _intent_table(store, results)
    row = table.frame.set_index("item_id").loc["i3"]
    assert row["category"] == EVAL_FAILED
    assert row["failed"] == "bifact"


def test_reference_replaces_the_human_mean(store: Store) -> None:
    _intent_project(store)
    ref = pd.DataFrame([{"item_id": "i2", "field": "f1", "value": 0.5, "source": "adjudicated"}])
    frame = _table(store, reference=ref).frame.set_index("item_id")
    assert frame.loc["i2", "human"] == pytest.approx(0.5)
    assert frame.loc["i2", "human_source"] == "adjudicated"
    assert frame.loc["i2", "Δ bifact"] == pytest.approx(0.0)
    # adjudicated: the people's spread no longer makes it a "humans disagree" row
    assert frame.loc["i2", "category"] == AGREE
    assert frame.loc["i1", "human_source"] == "mean"


def test_filters_by_category_generator_and_split(store: Store) -> None:
    _intent_project(store)
    frame = _table(store).frame
    assert list(filter_audit(frame, categories=[METRIC_DIFFERS])["item_id"]) == ["i1"]
    assert sorted(filter_audit(frame, generators=["gpt"])["item_id"]) == ["i0", "i2"]
    assert sorted(filter_audit(frame, splits=["dev"], generators=["llama"])["item_id"]) == ["i3"]


def test_scales_and_common_scale_for_ordinal_fields() -> None:
    scales = field_scales(ACTION)
    assert scales["sources"] == (0.0, 3.0)
    assert scales["actionability"] == (0.0, 5.0)
    assert field_scales(INTENT)["match"] == (0.0, 1.0)


def test_actionability_deltas_are_on_a_common_scale(store: Store) -> None:
    store.create_project("act", "actionability")
    store.upsert_items(
        "act",
        [
            {
                "item_id": "a",
                "fields": {"claim": "c", "evidence": "e", "label": "false", "explanation": "x"},
            }
        ],
    )
    store.import_labels(
        "act",
        [
            {"item_id": "a", "annotator": who, "field": f, "value": v, "status": "submitted"}
            for who in ("ann", "bob")
            for f, v in (("errors_detected", 2), ("errors_corrected", 2), ("sources", 3))
        ],
    )
    store.import_scores(
        "act",
        [
            {
                "item_id": "a",
                "evaluator": "fingract",
                "field": "sources",
                "value": 0.0,
                "judge_model": None,
                "run": 0,
            }
        ],
    )
    info = store.project("act")
    table = build_audit_table(
        ACTION,
        info.settings,
        store.items("act"),
        store.annotations_frame("act"),
        store.scores_frame("act"),
        None,
        "sources",
    )
    row = table.frame.iloc[0]
    assert row["human_mean"] == 3
    assert row["Δ fingract"] == pytest.approx(-1.0)  # 0/3 - 3/3
    assert comparable_fields(ACTION, info.settings, store.scores_frame("act"))[0] == "sources"
    hs = human_scores(ACTION, info.settings, store.items("act"), store.annotations_frame("act"))
    assert hs[hs["field"] == "actionability"]["value"].tolist() == [5.0, 5.0]


def test_one_fields_human_scores_are_its_rows_of_all_and_derive_only_for_derived(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    test_actionability_deltas_are_on_a_common_scale(store)
    store.import_labels(
        "act",
        [
            {"item_id": "a", "annotator": "cem", "field": f, "value": v, "status": "submitted"}
            for f, v in (("errors_detected", 1), ("errors_corrected", 0), ("sources", 2))
        ],
    )
    info, items, labels = store.project("act"), store.items("act"), store.annotations_frame("act")
    every = human_scores(ACTION, info.settings, items, labels)
    calls = []
    kind = dataclasses.replace(ACTION, derive_fn=lambda *a: calls.append(1) or ACTION.derive(*a))
    for name in ("sources", "actionability"):
        calls.clear()
        one = human_scores(kind, info.settings, items, labels, name)
        want = every[every["field"] == name].reset_index(drop=True)
        pd.testing.assert_frame_equal(one, want)
        assert len(one) == 3 and len(calls) == (3 if name == "actionability" else 0)


def test_majority_reports_ties_and_unanimity() -> None:
    assert majority(["C", "C", "M"]) == ("C", False)
    assert majority(["M", "M"]) == ("M", True)
    assert majority(["C", "M"]) is None
    assert majority([None, None]) is None


def test_fact_grid_flags_facts_where_an_evaluator_differs_from_the_majority() -> None:
    fields = {
        "gold_facts": ["wants a flight", "to Paris", "on Monday"],
        "predicted_facts": ["wants a flight", "to Rome"],
    }
    people = {
        "ann": {"gold_fact_labels": ["C", "M", "C"], "predicted_fact_labels": ["C", "M"]},
        "bob": {"gold_fact_labels": ["C", "M", "M"], "predicted_fact_labels": ["C", "M"]},
        "cat": {"gold_fact_labels": ["C", "C", "M"], "predicted_fact_labels": ["C", "C"]},
    }
    details = {
        "bifact": {
            "gold_facts": [
                {"fact": "wants a flight", "label": "C", "reasoning": "stated"},
                {"fact": "to Paris", "label": "C", "reasoning": "city implied"},
                {"fact": "on Monday", "label": "M", "reasoning": "no day"},
            ],
            "predicted_facts": [
                {"fact": "wants a flight", "label": "M", "reasoning": "?"},
                {"fact": "to Rome", "label": "M", "reasoning": "gold says Paris"},
            ],
        }
    }
    grid = fact_grid(INTENT, None, fields, people, details)
    assert list(grid.columns) == [
        "side",
        "index",
        "fact",
        "ann",
        "bob",
        "cat",
        "majority",
        "bifact",
        "flagged",
        "flagged_by",
    ]
    assert list(grid["majority"]) == ["C", "M", "M", "C", "M"]
    flagged = grid[grid["flagged"]][["side", "index"]].values.tolist()
    assert flagged == [["gold_facts", 1], ["predicted_facts", 0]]
    assert grid.loc[1, "flagged_by"] == "bifact"
    assert grid.loc[1, "fact"] == "to Paris"


def test_fact_grid_does_not_flag_a_tied_fact_and_reads_facts_from_the_evaluator() -> None:
    people = {"ann": {"gold_fact_labels": ["C"]}, "bob": {"gold_fact_labels": ["M"]}}
    details = {"bifact": {"gold_facts": [{"fact": "model fact", "label": "C"}]}}
    grid = fact_grid(INTENT, None, {}, people, details)
    assert grid.loc[0, "majority"] == "tie"
    assert not grid.loc[0, "flagged"]
    assert grid.loc[0, "fact"] == "model fact"


def _run(run_id: int, signature_text: str) -> RunInfo:
    """A finished fingract run on judge model ``m`` (the record ``Store.runs`` returns)."""
    return RunInfo(
        id=run_id,
        evaluator="fingract",
        version="1",
        model="m",
        signature={},
        signature_text=signature_text,
        run_index=0,
        source="run",
        job_id=None,
        status="done",
        tokens_in=0,
        tokens_out=0,
        cost=0.0,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=None,
    )


def test_latest_results_keeps_newest_run_and_averages_same_signature() -> None:
    base = {"evaluator": "fingract", "model": "m", "signature_text": "s", "result_status": "ok"}
    results = [
        {**base, "run_id": 1, "scores": {"actionability": 1.0}, "details": {"run": 1}},
        {**base, "run_id": 2, "scores": {"actionability": 3.0}, "details": {"run": 2}},
        {**base, "run_id": 3, "scores": {}, "result_status": "failed", "signature_text": "s"},
        {
            "evaluator": "bleu",
            "model": None,
            "signature_text": "b",
            "result_status": "ok",
            "run_id": 4,
            "scores": {"match": 0.2},
        },
    ]
    latest = latest_results(results)
    assert set(latest) == {"fingract", "bleu"}
    assert latest["fingract"]["run_id"] == 3  # the newest, even if it failed
    assert latest["fingract"]["mean_scores"] == {"actionability": 2.0}
    assert latest["fingract"]["n_runs"] == 2
    # another configuration of fingract elsewhere in the project: labels say which is which
    mine = {**base, "signature_text": "fingract:1|settings:s"}
    runs = [_run(5, "fingract:1|settings:s"), _run(6, "fingract:1|settings:x")]
    labelled = latest_results([{**mine, "run_id": 5, "scores": {}}], runs=runs)
    assert set(labelled) == {"fingract [settings:s]"}


def test_cli_exports_the_filtered_table_as_csv(sqlite_url: str, tmp_path) -> None:
    from commands import main

    store = Store(sqlite_url)
    _intent_project(store)
    store.close()
    out = tmp_path / "audit.csv"
    code = main(
        [
            "--db",
            sqlite_url,
            "audit",
            "im",
            "--out",
            str(out),
            "--category",
            METRIC_DIFFERS,
            "--category",
            AGREE,
        ]
    )
    assert code == 0
    frame = pd.read_csv(out)
    assert list(frame["item_id"]) == ["i1", "i0"]
    assert frame.loc[0, "Δ bifact"] == pytest.approx(0.5)
    assert main(["--db", sqlite_url, "audit", "im", "--out", str(out), "--field", "nope"]) == 2


def test_the_status_frame_is_the_results_without_their_scores(store: Store) -> None:
    """The Audit page reads every result's place and status only (not its scores): the
    same rows and the same table as from the full results frame."""
    from annotation_store.store_results import STATUS_COLUMNS
    from evaluators.base import EvalResult, Signature

    _intent_project(store)
    sig = Signature("bifact", "2", "m", "p2", {})
    run = store.create_run("im", sig, 0)
    store.save_results(
        "im",
        run,
        [
            EvalResult.failure("i3", sig, "reply was not JSON", "oops"),
            EvalResult("i0", sig, scores={"f1": 0.5}),
        ],
    )
    status = store.result_status_frame("im")
    full = store.results_frame("im", include_failed=True)
    assert list(status.columns) == STATUS_COLUMNS
    pd.testing.assert_frame_equal(status, full[STATUS_COLUMNS])
    assert sorted(status.loc[status["status"] == "failed", "item_id"]) == ["i3"]
    tables = [_intent_table(store, results).frame for results in (status, full)]
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert "bifact" in tables[0].set_index("item_id").loc["i3", "failed"]
