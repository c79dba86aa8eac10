"""Slot Error Rate on real SGD test dialogues: ground truth passes, tampered copies are caught."""

from __future__ import annotations

import asyncio

import pytest

from evaluators.base import EvalItem
from evaluators.builtin.ser import ser_report
from evaluators.registry import create_evaluator
from interop.sgd import shared_sgd_root

SGD_TEST = shared_sgd_root() / "test"


@pytest.fixture(scope="module")
def sgd_results():
    from interop.sgd import read_sgd
    from kinds import get_kind

    if not (SGD_TEST / "schema.json").is_file():
        pytest.skip(f"SGD subset not found at {SGD_TEST}")
    kind = get_kind("dialogue_faithfulness")
    items = [
        EvalItem(i["item_id"], kind.validate_item(i["fields"]), i["generator"])
        for i in read_sgd(SGD_TEST, negatives=True)
    ]
    results = asyncio.run(create_evaluator("ser").evaluate(items))
    return items, results


def _split(sgd_results, generator):
    items, results = sgd_results
    return [r for i, r in zip(items, results, strict=True) if i.generator == generator]


def test_ground_truth_utterances_have_zero_slot_errors_measured_0_of_1867(sgd_results):
    report = ser_report(_split(sgd_results, "sgd-ground-truth"))
    # measured on the 3 test dialogue files: 1,867 non-categorical acts, 0 missing values
    assert report.applicable > 1500
    assert report.slot_error_rate is not None and report.slot_error_rate <= 0.01
    assert report.slot_errors == 0


def test_tampered_copies_are_caught_measured_1867_of_1867(sgd_results):
    report = ser_report(_split(sgd_results, "sgd-tampered"))
    assert report.applicable > 1500
    assert report.act_error_rate == 1.0  # every substituted non-categorical value is missed


def test_categorical_slots_are_counted_not_scored(sgd_results):
    gt = _split(sgd_results, "sgd-ground-truth")
    report = ser_report(gt)
    reasons = report.not_applicable_reasons
    assert reasons["categorical slot"] > 500  # measured: 770
    # REQUEST, GOODBYE, ... measured: 1,480; what an utterance invents is not counted
    assert reasons["act has no slot values (invented values are not counted)"] > 1000
    assert report.as_dict()["invented_values_counted"] is False
    assert report.applicable + report.not_applicable == len(gt)
    for r in gt:
        if not r.details["applicable"]:
            assert r.status == "ok" and r.scores == {"faithful": None}


def test_case_insensitive_match_and_missing_values():
    ev = create_evaluator("ser")
    items = [
        EvalItem(
            "a",
            {
                "act": {"act": "INFORM", "slot": "city", "values": ["San Jose"]},
                "utterance": "It is in SAN JOSE.",
                "is_categorical": "False",
            },
        ),
        EvalItem(
            "b",
            {
                "act": {"act": "OFFER", "slot": "city", "values": ["Napa", "Davis"]},
                "utterance": "How about Napa?",
                "is_categorical": False,
            },
        ),
        EvalItem(
            "c",
            {"act": {"act": "INFORM", "slot": "count", "values": ["3"]}, "utterance": "I found 3."},
        ),
    ]
    a, b, c = asyncio.run(ev.evaluate(items))
    assert a.scores == {"faithful": 1.0}
    assert b.scores == {"faithful": 0.0} and b.details["missing"] == ["Davis"]
    assert c.scores == {"faithful": None} and "unknown" in c.details["reason"]
    report = ser_report([a, b, c])
    assert (report.slot_values, report.slot_errors) == (3, 1)
    assert report.slot_error_rate == pytest.approx(1 / 3)
    assert report.act_error_rate == pytest.approx(1 / 2)


def test_per_utterance_error_rate_groups_acts_by_utterance():
    ev = create_evaluator("ser")

    def act(item_id, slot, values, utterance, turn, categorical="False"):
        fields = {
            "act": {"act": "INFORM", "slot": slot, "values": values},
            "utterance": utterance,
            "is_categorical": categorical,
            "dialogue_id": "d",
            "turn_index": turn,
        }
        return EvalItem(item_id, fields)

    first = "Table at Luigi's in Napa."
    second = "Luigi's is cheap."
    items = [
        act("d:1:0", "restaurant", ["Luigi's"], first, 1),  # realised
        act("d:1:1", "city", ["Davis"], first, 1),  # missing: utterance 1 has an error
        act("d:2:0", "restaurant", ["Luigi's"], second, 2),  # realised
        act("d:2:1", "price", ["cheap"], second, 2, categorical="True"),  # not applicable
        act("d:3:0", "price", ["cheap"], "Cheap.", 3, categorical="True"),  # none applicable
    ]
    results = asyncio.run(ev.evaluate(items))
    assert [r.scores["faithful"] for r in results] == [1.0, 0.0, 1.0, None, None]
    assert results[0].details["utterance"] == {"id": "d:1", "keyed": True, "tampered_of": None}
    report = ser_report(results)
    assert report.act_error_rate == pytest.approx(1 / 3)
    assert report.n_utterances == 2  # d:3 has no applicable act
    assert report.utterance_error_rate == pytest.approx(1 / 2)
    assert create_evaluator("ser").corpus_summary(results)["utterance_error_rate"] == 0.5
