"""Adjudication: final labels with their source, cause and note; the reference frame."""

from __future__ import annotations

import pytest

from adjudication.final_labels import (
    AdjudicationError,
    accept_majority,
    adjudicated_reference,
    adjudications,
    clear_final_label,
    human_majority,
    set_final_label,
)
from annotation_store import Store


def _project(store: Store) -> None:
    store.create_project("im", "intent_match")
    store.upsert_items(
        "im",
        [
            {
                "item_id": i,
                "fields": {
                    "gold": "g",
                    "predicted": "p",
                    "gold_facts": ["a", "b"],
                    "predicted_facts": ["x"],
                },
            }
            for i in ("i0", "i1")
        ],
    )
    rows = []
    per = {
        "i0": {
            "ann": (1, ["C", "C"], ["C"]),
            "bob": (1, ["C", "M"], ["C"]),
            "cat": (1, ["C", "M"], ["M"]),
        },
        "i1": {"ann": (1, ["C", "C"], ["C"]), "bob": (0, ["M", "M"], ["M"])},
    }
    for item_id, people in per.items():
        for who, (match, gold, pred) in people.items():
            for field, value in (
                ("match", match),
                ("gold_fact_labels", gold),
                ("predicted_fact_labels", pred),
            ):
                rows.append(
                    {
                        "item_id": item_id,
                        "annotator": who,
                        "field": field,
                        "value": value,
                        "status": "submitted",
                    }
                )
    store.import_labels("im", rows)
    store.ensure_annotator("rev", role="reviewer")
    store.ensure_annotator("ann", role="annotator")


def test_accepting_the_majority_records_unanimous_or_majority(any_store: Store) -> None:
    _project(any_store)
    assert human_majority(any_store, "im", "i0", "match") == (1, "unanimous")
    assert human_majority(any_store, "im", "i0", "gold_fact_labels", 1) == ("M", "majority")
    assert human_majority(any_store, "im", "i1", "match") is None  # 1 vs 0
    row = accept_majority(any_store, "im", "i0", "match", reviewer="rev")
    assert (row["value"], row["source"]) == (1, "unanimous")
    row = accept_majority(
        any_store,
        "im",
        "i0",
        "gold_fact_labels",
        fact_index=1,
        reviewer="rev",
        cause="annotator_error",
        note="ann misread",
    )
    assert (row["value"], row["source"], row["cause"]) == ("M", "majority", "annotator_error")
    with pytest.raises(AdjudicationError, match="no clear majority"):
        accept_majority(any_store, "im", "i1", "match", reviewer="rev")
    frame = adjudications(any_store, "im")
    assert frame[["item_id", "field", "fact_index", "value", "source"]].values.tolist() == [
        ["i0", "gold_fact_labels", 1, "M", "majority"],
        ["i0", "match", -1, 1, "unanimous"],
    ]
    assert frame.loc[0, "note"] == "ann misread"
    assert frame.loc[0, "reviewer"] == "rev"


def test_a_reviewer_choice_is_adjudicated_validated_and_replaces_the_old_one(store: Store) -> None:
    _project(store)
    set_final_label(store, "im", "i1", "match", 0, reviewer="rev", cause="ambiguous_item")
    set_final_label(
        store,
        "im",
        "i1",
        "match",
        "yes",
        reviewer="rev",
        cause="guideline_gap",
        note="guideline says same task",
    )
    frame = adjudications(store, "im", "i1")
    assert len(frame) == 1
    assert (frame.loc[0, "value"], frame.loc[0, "source"], frame.loc[0, "cause"]) == (
        1,
        "adjudicated",
        "guideline_gap",
    )
    with pytest.raises(ValueError):
        set_final_label(store, "im", "i1", "match", 3, reviewer="rev")
    with pytest.raises(AdjudicationError, match="fact 5 does not exist"):
        set_final_label(store, "im", "i1", "gold_fact_labels", "C", fact_index=5, reviewer="rev")
    with pytest.raises(AdjudicationError, match="not a reviewer"):
        set_final_label(store, "im", "i1", "match", 1, reviewer="ann")
    with pytest.raises(AdjudicationError, match="cause"):
        set_final_label(store, "im", "i1", "match", 1, reviewer="rev", cause="bad luck")
    assert clear_final_label(store, "im", "i1", "match", reviewer="rev") is True
    assert adjudications(store, "im").empty


def test_reference_uses_final_labels_then_majorities_and_derives_scores(store: Store) -> None:
    _project(store)
    # i0: per-fact majority is gold [C, M], predicted [C] -> recall .5, precision 1
    ref = adjudicated_reference(store, "im").set_index(["item_id", "field"])
    assert ref.loc[("i0", "gold_fact_labels"), "value"] == ["C", "M"]
    assert ref.loc[("i0", "gold_fact_labels"), "source"] == "majority"
    assert ref.loc[("i0", "match"), "source"] == "unanimous"
    assert ref.loc[("i0", "recall"), "value"] == pytest.approx(0.5)
    assert ref.loc[("i0", "f1"), "value"] == pytest.approx(2 / 3)
    assert ("i1", "match") not in ref.index  # a tie and no final label: left out
    # a reviewer overrides one fact: recall becomes 1.0, and the field is "adjudicated"
    set_final_label(
        store,
        "im",
        "i0",
        "gold_fact_labels",
        "C",
        fact_index=1,
        reviewer="rev",
        cause="annotator_error",
    )
    set_final_label(store, "im", "i1", "match", 0, reviewer="rev")
    ref = adjudicated_reference(store, "im").set_index(["item_id", "field"])
    assert ref.loc[("i0", "gold_fact_labels"), "value"] == ["C", "C"]
    assert ref.loc[("i0", "gold_fact_labels"), "source"] == "adjudicated"
    assert ref.loc[("i0", "recall"), "value"] == pytest.approx(1.0)
    assert ref.loc[("i0", "recall"), "source"] == "adjudicated"
    assert ref.loc[("i1", "match"), "value"] == 0
    only_final = adjudicated_reference(store, "im", fill_from_majority=False)
    assert sorted(only_final["field"].unique()) == ["match"]
    assert only_final[["item_id", "value", "source"]].values.tolist() == [["i1", 0, "adjudicated"]]
