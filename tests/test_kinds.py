"""Task kinds: registry, validation of values and settings, derived scores."""

from __future__ import annotations

import json

import pytest

from evaluators.registry import evaluators_for_kind
from kinds import FieldType, Level, ValidationError, get_kind, kind_names
from kinds.base import f1, share_implied


def test_every_kind_is_registered() -> None:
    assert set(kind_names()) == {
        "intent_match",
        "actionability",
        "dialogue_faithfulness",
        "intent_resolution",
        "binary",
        "categorical",
        "likert",
        "score",
    }


def test_unknown_kind_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: actionability, binary"):
        get_kind("nope")


def test_bifact_alarm_example_derives_recall_half_precision_two_thirds() -> None:
    kind = get_kind("intent_match")
    scores = kind.derive(
        {"gold_fact_labels": ["C", "C", "M", "M"], "predicted_fact_labels": ["C", "C", "M"]}, {}
    )
    assert scores["recall"] == pytest.approx(0.5)
    assert scores["precision"] == pytest.approx(2 / 3)
    assert scores["f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))


def test_empty_fact_lists_leave_scores_undefined_not_zero() -> None:
    kind = get_kind("intent_match")
    assert kind.derive({"gold_fact_labels": [], "predicted_fact_labels": ["C"]}, {}) == {
        "recall": None,
        "precision": 1.0,
        "f1": None,
    }
    assert kind.derive({}, {}) == {"recall": None, "precision": None, "f1": None}
    assert share_implied([]) is None
    assert f1(0.0, 0.0) == 0.0


def test_actionability_is_rubric_sum_times_five_sevenths() -> None:
    kind = get_kind("actionability")
    labels = {"errors_detected": 1, "errors_corrected": 1, "sources": 1}
    assert kind.derive(labels, {})["actionability"] == pytest.approx(3 * 5 / 7)
    full = {"errors_detected": 2, "errors_corrected": 2, "sources": 3}
    assert kind.derive(full, {})["actionability"] == pytest.approx(5.0)
    assert kind.derive({"errors_detected": 2}, {})["actionability"] is None


@pytest.mark.parametrize(
    "raw,expected", [("yes", 1), ("No", 0), ("TRUE", 1), ("false", 0), ("1", 1), (0, 0), (True, 1)]
)
def test_binary_values_accept_common_spellings(raw, expected) -> None:
    field = get_kind("binary").human_field("label")
    assert field.validate(raw) == expected


def test_binary_rejects_other_values() -> None:
    with pytest.raises(ValidationError, match="not a binary value"):
        get_kind("binary").human_field("label").validate("maybe")


def test_ordinal_fields_snap_to_allowed_values_and_levels_fit() -> None:
    field = get_kind("intent_resolution").human_field("resolution")
    assert field.validate("0.6") == 0.6
    with pytest.raises(ValidationError):
        field.validate(0.5)
    assert field.agreement_levels == (Level.NOMINAL, Level.ORDINAL, Level.INTERVAL)
    assert get_kind("score").human_field("label").agreement_levels == (Level.INTERVAL, Level.RATIO)


def test_fact_labels_must_match_the_number_of_facts() -> None:
    field = get_kind("intent_match").human_field("gold_fact_labels")
    assert field.type is FieldType.FACT_LABELS
    item = {"gold_facts": ["a", "b"]}
    assert field.validate('["c", "M"]', item) == ["C", "M"]
    with pytest.raises(ValidationError, match="1 labels for 2 facts"):
        field.validate(["C"], item)


def test_generic_kinds_take_their_label_sets_from_settings() -> None:
    cat = get_kind("categorical")
    assert cat.human_field("label", {"labels": ["pos", "neg"]}).validate("neg") == "neg"
    with pytest.raises(ValidationError, match="at least 2"):
        cat.validate_settings({"labels": ["only"]})
    likert = get_kind("likert")
    assert likert.human_field("label", {"min": 1, "max": 7}).values == tuple(range(1, 8))
    with pytest.raises(ValidationError, match="min"):
        likert.validate_settings({"min": 5, "max": 1})
    with pytest.raises(ValidationError, match="'k'"):
        likert.validate_settings({"k": 0})


def test_item_validation_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        get_kind("intent_match").validate_item({"gold": "x"})
    assert info.value.field == "predicted"
    fields = get_kind("intent_match").validate_item(
        {"gold": "g", "predicted": "p", "gold_facts": '["a", "b"]'}
    )
    assert fields["gold_facts"] == ["a", "b"]


#: Written out from the ``kinds`` of evaluators/builtin/*.py: the pair baselines
#: (the kinds declaring a ``text_pair``) cover intent_match, binary, likert and score.
LEXICAL_AND_EMBEDDING = ["bleu", "chrf", "embedding_cosine", "meteor", "rouge1", "rouge2", "rougeL"]
EXPECTED_EVALUATORS = {
    "intent_match": [
        "bifact",
        "bleu",
        "chrf",
        "embedding_cosine",
        "meteor",
        "nli_bidirectional",
        "rouge1",
        "rouge2",
        "rougeL",
    ],
    "actionability": [
        "fingract",
        "fingract_ucr",
        "geval",
        "geval_ucr",
        "prometheus",
        "prometheus_ucr",
    ],
    "dialogue_faithfulness": ["ser", "sgsacc"],
    "intent_resolution": ["geval", "intent_resolution", "prometheus"],
    "binary": LEXICAL_AND_EMBEDDING,
    "categorical": [],
    "likert": LEXICAL_AND_EMBEDDING,
    "score": LEXICAL_AND_EMBEDDING,
}


def test_the_evaluator_table_covers_every_kind() -> None:
    assert set(EXPECTED_EVALUATORS) == set(kind_names())


@pytest.mark.parametrize("kind", sorted(EXPECTED_EVALUATORS))
def test_each_kind_gets_exactly_its_evaluators(kind) -> None:
    assert evaluators_for_kind(kind) == EXPECTED_EVALUATORS[kind]


@pytest.mark.parametrize(
    "kind,defaults",
    [
        ("binary", {"k": 3}),
        ("categorical", {"k": 3, "labels": ["a", "b"]}),
        ("likert", {"k": 3, "min": 1, "max": 5}),
        ("score", {"k": 3}),
    ],
)
def test_generic_kinds_default_to_three_annotators_per_item(kind, defaults) -> None:
    spec = get_kind(kind)
    assert spec.settings(None) == defaults
    assert spec.validate_settings(None) == defaults
    assert spec.validate_settings({})["k"] == 3
    assert spec.validate_settings({"k": 5})["k"] == 5  # a project may ask for more


@pytest.mark.parametrize("raw", ["nan", "NaN", " nan "])
def test_a_nan_label_is_not_a_number(raw) -> None:
    with pytest.raises(ValidationError, match=r"is not a number"):
        get_kind("score").human_field("label").validate(raw)
    with pytest.raises(ValidationError, match=r"is not a number"):
        get_kind("intent_resolution").human_field("resolution").validate(raw)
    assert get_kind("score").human_field("label").validate(" 0.5 ") == 0.5


DIALOGUE = {"service": "Restaurants_2", "utterance": "It is moderately priced."}


@pytest.mark.parametrize(
    "act",
    [
        {"act": "INFORM", "slot": "price_range", "values": ["moderate"]},
        {"act": "GOODBYE", "slot": "", "values": []},
        {"act": "REQ_MORE"},
        '{"act": "REQUEST", "slot": "time", "values": []}',
    ],
)
def test_well_formed_dialogue_acts_pass(act) -> None:
    fields = get_kind("dialogue_faithfulness").validate_item({**DIALOGUE, "act": act})
    assert fields["act"] == (json.loads(act) if isinstance(act, str) else act)


@pytest.mark.parametrize(
    "act,reason",
    [
        ({}, 'act needs an "act" type such as "INFORM"'),
        ({"act": "  ", "slot": "x"}, 'act needs an "act" type such as "INFORM"'),
        ({"act": 7}, 'act needs an "act" type such as "INFORM"'),
        ({"act": "INFORM", "slot": ["city"]}, 'act "slot" must be text'),
        ({"act": "INFORM", "values": "Napa"}, 'act "values" must be a list of strings'),
        ({"act": "INFORM", "values": [3]}, 'act "values" must be a list of strings'),
        (["INFORM"], "field 'act' must be an object"),
        ("INFORM(price_range=moderate)", "field 'act' must be a JSON object"),
    ],
)
def test_malformed_dialogue_acts_are_rejected_naming_the_field(act, reason) -> None:
    with pytest.raises(ValidationError) as info:
        get_kind("dialogue_faithfulness").validate_item({**DIALOGUE, "act": act})
    assert (str(info.value), info.value.field) == (reason, "act")
