"""SGSAcc: Appendix B candidate references on real SGD acts, the evaluation logic with a
scripted NLI backend, and one run through the LLM backend with the scripted server."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence

import pytest

from evaluators.base import EvalContext, EvalItem
from evaluators.builtin.sgsacc import SGSAccEvaluator, corpus_report, report_text
from evaluators.nli.base import NLIBackend, NLIPrediction, NLIProbs
from evaluators.sgd_acts import Act
from evaluators.sgd_references import candidate_references
from interop.sgd import shared_sgd_root

SGD_TEST = shared_sgd_root() / "test"
needs_sgd = pytest.mark.skipif(
    not (SGD_TEST / "schema.json").is_file(), reason=f"SGD subset not found at {SGD_TEST}"
)


@pytest.fixture(scope="module")
def sgd_items() -> dict[str, dict]:
    from interop.sgd import read_sgd

    if not (SGD_TEST / "schema.json").is_file():
        pytest.skip(f"SGD subset not found at {SGD_TEST}")
    return {i["item_id"]: i for i in read_sgd(SGD_TEST, negatives=True)}


def refs(sgd_items, item_id: str) -> list[str]:
    return Act.from_fields(sgd_items[item_id]["fields"]).candidates()


# -- Appendix B, case by case, on real acts of the SGD test subset --------------------------
@needs_sgd
@pytest.mark.parametrize(
    ("item_id", "expected"),
    [
        # non-boolean, one value: "{desc} is {value}" and "{slot} is {value}"
        (
            "1_00000:3:0",
            ["Name of the restaurant is P.f. Chang's.", "Restaurant name is P.f. Chang's."],
        ),
        (
            "1_00000:9:0",
            ["Price range for the restaurant is moderate.", "Price range is moderate."],
        ),
        # boolean True, slot with "has": "? Yes." forms and "Does {slot}"
        (
            "1_00006:9:0",
            [
                "Whether the restaurant has adequate vegetarian options? Yes.",
                "Has vegetarian options? Yes.",
                "Does have vegetarian options.",
            ],
        ),
        # boolean False, slot with "has": "? No." forms and the negative "Does not"
        (
            "1_00000:9:1",
            [
                "Whether the restaurant has adequate vegetarian options? No.",
                "Has vegetarian options? No.",
                "Does not have vegetarian options.",
            ],
        ),
        # boolean True / False, slot with "is": the slot name itself / "is" -> "is not"
        (
            "2_00092:5:2",
            ["Whether the flight is a direct one? Yes.", "Is nonstop? Yes.", "Is nonstop."],
        ),
        (
            "2_00091:3:2",
            ["Whether the flight is a direct one? No.", "Is nonstop? No.", "Is not nonstop."],
        ),
        # boolean, neither: prepend has / have / is, or their negations
        (
            "1_00042:5:0",
            [
                "Whether or not smoking is allowed inside the place? Yes.",
                "Smoking allowed? Yes.",
                "Has smoking allowed.",
                "Have smoking allowed.",
                "Is smoking allowed.",
            ],
        ),
        (
            "1_00060:5:0",
            [
                "Whether or not smoking is allowed inside the place? No.",
                "Smoking allowed? No.",
                # Table 3's forms (additional_luggage = False), not the appendix prose
                "Has no smoking allowed.",
                "Is not smoking allowed.",
                "Does not smoking allowed.",
            ],
        ),
        # REQUEST: "Request {desc}" and "Request {slot}", example values ignored
        ("1_00000:1:0", ["Request tentative time of restaurant reservation.", "Request time."]),
        ("2_00016:1:0", ["Request type of cultural event.", "Request event type."]),
        ("3_00106:13:0", ["Request whether to purchase insurance.", "Request add insurance."]),
        # GOODBYE and REQ_MORE: fixed sentences
        ("1_00000:13:0", ["Have a good day.", "Bye bye.", "See you."]),
        (
            "1_00000:5:1",
            ["What else do you need?", "What else can I help you with?", "Is there anything else?"],
        ),
        # slots without a schema description: slot-name form only (ours: intent read as words)
        ("1_00034:3:2", ["Count is 10."]),
        ("1_00033:3:0", ["Intent is reserve hotel."]),
        # slot-less acts the appendix does not list (our sentences)
        ("1_00000:9:2", ["The request was successful.", "It is done."]),
        ("1_00000:5:0", ["The request failed.", "It could not be done."]),
    ],
)
def test_candidates_on_real_acts(sgd_items, item_id, expected):
    assert refs(sgd_items, item_id) == expected


@needs_sgd
def test_multi_value_rule(sgd_items):
    # SGD system acts never carry several values outside REQUEST, so take the real
    # event_type slot of 2_00016:1:0 and give an INFORM its two example values.
    fields = dict(sgd_items["2_00016:1:0"]["fields"])
    fields["act"] = {"act": "INFORM", "slot": "event_type", "values": ["Music", "Theater"]}
    assert Act.from_fields(fields).candidates() == [
        "Type of cultural event are Music and Theater.",
        "Event type are Music and Theater.",
    ]
    assert candidate_references("OFFER", "city", ["A", "B", "C"], "City of the event") == [
        "City of the event are A, B and C.",
        "City are A, B and C.",
    ]


@needs_sgd
def test_boolean_detection_uses_schema(sgd_items):
    assert Act.from_fields(sgd_items["1_00000:9:1"]["fields"]).boolean
    assert not Act.from_fields(sgd_items["1_00000:9:0"]["fields"]).boolean


# -- the evaluation logic with a scripted NLI -------------------------------------------------
class ScriptedNLI(NLIBackend):
    """Entailment decided by a rule; records every batch it was asked."""

    kind = "scripted"

    def __init__(self, rule: Callable[[str, str], float | None]) -> None:
        self.rule = rule
        self.batches: list[list[tuple[str, str]]] = []

    @property
    def model_name(self) -> str:
        return "scripted"

    async def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIPrediction]:
        self.batches.append(list(pairs))
        out = []
        for premise, hypothesis in pairs:
            e = self.rule(premise, hypothesis)
            if e is None:
                out.append(NLIPrediction(None, error="scripted failure", raw="?"))
            else:
                out.append(NLIPrediction(NLIProbs(e, (1 - e) * 0.75, (1 - e) * 0.25)))
        return out


def evaluator(rule, **settings) -> tuple[SGSAccEvaluator, ScriptedNLI]:
    ev = SGSAccEvaluator(settings, EvalContext())
    backend = ScriptedNLI(rule)
    ev.__dict__["backend"] = backend  # the cached_property slot
    return ev, backend


def stylist_item(item_id="q", values=("Queens",), **extra) -> EvalItem:
    """Figure 1 of the paper: the value only makes sense with the context."""
    fields = {
        "service": "Services_1",
        "act": {"act": "INFORM", "slot": "stylist_name", "values": list(values)},
        "utterance": "What about Queens?",
        "previous_turn": "I want to book a hair cut.",
        "slot_description": "Name of the hair stylist",
        "is_categorical": "False",
        "substitute_values": ["Kings", "Bishops"],
        **extra,
    }
    return EvalItem(item_id, fields)


def context_rule(premise: str, hypothesis: str) -> float:
    """Entails "... is V." only when V is in the premise and so is the word "stylist"."""
    m = re.search(r" is (\w+)\.$", hypothesis)
    if m and m.group(1) in premise and "stylist" in premise.lower():
        return 0.7
    return 0.1


def run(ev, items):
    return asyncio.run(ev.evaluate(items))


def test_augmented_premise_makes_figure_1_faithful():
    ev, backend = evaluator(context_rule)
    [res] = run(ev, [stylist_item()])
    assert res.status == "ok"
    assert res.scores == {"faithful": 1.0, "entailment": 0.7}
    assert res.details["reference"] == "Name of the hair stylist is Queens."
    assert res.details["premise_augmented"] and res.details["truth_premise_augmented"]
    assert res.details["validated"] is True
    assert res.details["validation"]["negatives"] == 4  # 2 substitutes x 2 candidates
    premises = {p for batch in backend.batches for p, _ in batch}
    assert "I want to book a hair cut. Name of the hair stylist. What about Queens?" in premises


def test_without_augmentation_figure_1_is_unfaithful():
    ev, _ = evaluator(context_rule, augment=False)
    [res] = run(ev, [stylist_item()])
    assert res.scores["faithful"] == 0.0 and res.details["validated"] is False


def test_entailed_negative_fails_validation():
    ev, _ = evaluator(lambda p, h: 0.9)  # a model that entails everything
    [res] = run(ev, [stylist_item()])
    assert res.scores["faithful"] == 1.0
    assert res.details["validated"] is False
    assert len(res.details["validation"]["negatives_entailed"]) == 4
    report = corpus_report([res])
    assert report.sgsacc_all == 1.0 and report.sgsacc_validated is None
    assert report.validation_fail_share == 1.0


def test_negatives_only_against_the_chosen_premise_and_only_when_a_positive_holds():
    ev, backend = evaluator(context_rule)
    [res] = run(ev, [stylist_item()])
    asked = [pair for batch in backend.batches for pair in batch]
    negatives = [(p, h) for p, h in asked if "Kings" in h or "Bishops" in h]
    assert len(negatives) == 4  # 2 substitutes x 2 candidates, once each
    assert all(p.startswith("I want to book a hair cut.") for p, _ in negatives)  # augmented
    assert res.details["validation"]["negatives_entailed"] == []
    assert "truth_premise" not in res.details and "positive_entailed" not in res.details

    ev, backend = evaluator(lambda p, h: 0.1)  # entails nothing: validation fails early
    [res] = run(ev, [stylist_item()])
    asked = [h for batch in backend.batches for _, h in batch]
    assert not any("Kings" in h or "Bishops" in h for h in asked)
    assert res.details["validated"] is False
    assert res.details["validation"] == {
        "positive_entailed": False,
        "negatives": 4,
        "negatives_entailed": None,
    }


def test_tampered_copy_is_validated_with_its_original_act():
    ev, _ = evaluator(context_rule)
    [res] = run(ev, [stylist_item("q:neg", values=("Kings",), original_values=["Queens"])])
    assert res.details["validated"] is True  # the ground-truth pair is sound
    assert res.scores["faithful"] == 0.0  # but "Kings" is not what was said
    assert res.details["reference"] == "Name of the hair stylist is Kings."


def test_highest_entailment_candidate_is_the_reference():
    def graded(premise, hypothesis):
        return 0.6 if hypothesis.startswith("Stylist name") else 0.2

    ev, _ = evaluator(graded, validate_references=False)
    [res] = run(ev, [stylist_item()])
    assert res.details["reference"] == "Stylist name is Queens."
    assert res.details["candidates"] == {
        "Name of the hair stylist is Queens.": 0.2,
        "Stylist name is Queens.": 0.6,
    }
    assert "validated" not in res.details


def test_reference_utterance_is_the_ground_truth():
    truth = "The hair stylist Queens is free."
    item = stylist_item(reference_utterance=truth)
    item.fields["utterance"] = "Queens is fully booked, sorry."  # generated text judged
    ev, backend = evaluator(context_rule, augment=False)
    [res] = run(ev, [item])
    assert res.details["validated"] is True  # validation used the reference utterance
    assert res.scores["faithful"] == 0.0  # the generated text lacks "stylist"
    first_round = {p for p, _ in backend.batches[0]}
    assert first_round == {truth}


def test_nli_failure_is_a_failed_result():
    ev, _ = evaluator(lambda p, h: None)
    [res] = run(ev, [stylist_item()])
    assert res.status == "failed" and "scripted failure" in res.error and not res.scores


def test_act_without_candidates_fails_cleanly():
    ev, _ = evaluator(context_rule)
    item = EvalItem(
        "r",
        {
            "service": "S",
            "act": {"act": "REQUEST", "slot": "", "values": []},
            "utterance": "Anything?",
        },
    )
    [res] = run(ev, [item])
    assert res.status == "failed" and "no candidate references" in res.error


def test_batched_equals_single_and_rounds_are_few():
    items = [
        stylist_item("a"),
        stylist_item("b", values=("Kings",)),
        stylist_item("c", values=("Queens", "Kings")),
    ]
    ev, backend = evaluator(context_rule)
    batched = run(ev, items)
    assert len(backend.batches) <= 4
    single = [run(evaluator(context_rule)[0], [it])[0] for it in items]
    assert [r.scores for r in batched] == [r.scores for r in single]
    assert [r.details for r in batched] == [r.details for r in single]


def test_corpus_report_numbers():
    ev, _ = evaluator(context_rule)
    results = run(
        ev,
        [
            stylist_item("a"),  # validated, faithful
            stylist_item("b", values=("Kings",), original_values=["Queens"]),  # validated, 0
            stylist_item("c", values=("Kings",)),  # fails validation (truth lacks Kings), 0
        ],
    )
    results.append(run(evaluator(lambda p, h: None)[0], [stylist_item("d")])[0])  # failed
    report = corpus_report(results)
    assert report.n == 4 and report.failed == 1
    assert report.sgsacc_all == pytest.approx(1 / 3)
    assert report.n_validated == 2 and report.sgsacc_validated == pytest.approx(1 / 2)
    assert report.validation_fail_share == pytest.approx(1 / 3)
    # a, b, c, d are each their own utterance; b's unit also holds its real act "b"
    assert report.validation_fail_share_act == pytest.approx(1 / 3)


# -- end to end through the LLM backend and the scripted server -------------------------------
def _value_judge(request):
    from tests.support.scripted_llm import Reply

    user = request["messages"][1]["content"]
    text = user.split("Text:", 1)[1].split("\nStatement:", 1)[0].lower()
    statement = user.split("Statement:", 1)[1].split("\n", 1)[0]
    m = re.search(r" is (.+)\.$", statement)
    if m and m.group(1).lower() in text:
        return Reply(content=json.dumps({"yes": 0.9, "unknown": 0.08, "no": 0.02}))
    return Reply(content=json.dumps({"yes": 0.1, "unknown": 0.7, "no": 0.2}))


@needs_sgd
def test_sgsacc_through_llm_backend(llm_env, sgd_items):
    client_mod = pytest.importorskip("evaluators.llm.client")
    from kinds import get_kind

    llm_env.handler = _value_judge
    ctx = EvalContext(llm=client_mod.build_llm_client())
    ev = SGSAccEvaluator({"backend": "llm"}, ctx)
    assert ev.unavailable_reason() is None
    assert ev.signature().model == f"llm:{llm_env.model}" and ev.signature().prompt_hash
    kind = get_kind("dialogue_faithfulness")
    items = [
        EvalItem(i, kind.validate_item(sgd_items[i]["fields"]))
        for i in ("1_00000:3:0", "1_00000:3:0:neg")
    ]
    real, tampered = run(ev, items)
    assert real.status == tampered.status == "ok"
    assert real.scores["faithful"] == 1.0 and real.details["validated"] is True
    assert tampered.scores["faithful"] == 0.0 and tampered.details["validated"] is True
    assert real.scores["entailment"] == pytest.approx(0.9)  # the stated distribution
    assert real.tokens_in > 0
    # the backend that ran is in every result, the signature and the corpus figures
    assert real.details["nli_backend"] == f"LLM-NLI: {llm_env.model}"
    assert real.signature.settings["backend_used"] == "llm"
    assert corpus_report([real, tampered]).nli_backend == f"LLM-NLI: {llm_env.model}"


@needs_sgd
def test_auto_with_only_an_endpoint_is_labelled_llm_nli(llm_env, sgd_items, monkeypatch):
    from common.evaluator_labels import config_labels, evaluator_of
    from evaluators.llm.client import build_llm_client
    from kinds import get_kind

    monkeypatch.delenv("WORKBENCH_NLI_MODEL", raising=False)
    llm_env.handler = _value_judge
    ev = SGSAccEvaluator({}, EvalContext(llm=build_llm_client()))  # backend "auto"
    assert ev.settings.backend == "auto"
    fields = get_kind("dialogue_faithfulness").validate_item(sgd_items["1_00000:3:0"]["fields"])
    [res] = run(ev, [EvalItem("1_00000:3:0", fields)])
    assert res.details["nli_backend"] == f"LLM-NLI: {llm_env.model}"
    sig = res.signature
    assert sig.settings["backend_used"] == "llm" and sig.model == f"llm:{llm_env.model}"
    [label] = config_labels([("sgsacc", sig.model, str(sig))]).values()
    assert label == f"sgsacc (LLM-NLI: {llm_env.model})" and evaluator_of(label) == "sgsacc"
    summary = SGSAccEvaluator.corpus_summary([res])
    assert summary["nli_backend"] == f"LLM-NLI: {llm_env.model}"


# -- with the real transformers backend (a tiny random model) through the CLI -----------------
@needs_sgd
def test_sgsacc_cli_with_tiny_transformers_model(
    tmp_path, monkeypatch, store, sqlite_url, sgd_items, capsys
):
    from commands import main as cli_main
    from evaluators.nli.random_model import build_random_nli_model
    from interop.sgd import import_sgd

    split = tmp_path / "test"
    split.mkdir()
    schema = SGD_TEST / "schema.json"
    (split / "schema.json").write_text(schema.read_text())
    dialogues = json.loads((SGD_TEST / "dialogues_001.json").read_text())[:2]
    (split / "dialogues_001.json").write_text(json.dumps(dialogues))
    import_sgd(store, "sgd", split, negatives=True)
    texts = [i.fields["utterance"] for i in store.items("sgd")]
    model = build_random_nli_model(tmp_path / "tiny-nli", texts)
    monkeypatch.setenv("WORKBENCH_NLI_MODEL", str(model))
    code = cli_main(["--db", sqlite_url, "evaluate", "sgd", "--evaluator", "sgsacc"])
    assert code == 0
    n = store.item_count("sgd")
    assert f"{n} evaluated" in capsys.readouterr().out
    frame = store.scores_frame("sgd")
    faithful = frame[frame["field"] == "faithful"]
    assert len(faithful) == n and set(faithful["score"]) <= {0.0, 1.0}
    assert (frame["model"] == "transformers:tiny-nli").all()


def test_request_with_example_values_has_no_negatives():
    item = EvalItem(
        "r",
        {
            "service": "Events_1",
            "is_categorical": "True",
            "act": {"act": "REQUEST", "slot": "event_type", "values": ["Music", "Theater"]},
            "possible_values": ["Music", "Theater", "Sports"],
            "slot_description": "Type of cultural event",
            "utterance": "Music, Theater or something else?",
        },
    )
    ev, _ = evaluator(lambda p, h: 0.9 if h.startswith("Request") else 0.1)
    [res] = run(ev, [item])
    assert res.details["validation"]["negatives"] == 0
    assert res.details["validated"] is True and res.scores["faithful"] == 1.0


# -- per utterance: faithful only when all its acts are (the paper's unit) -------------------
def _value_rule(premise: str, hypothesis: str) -> float:
    m = re.search(r" is (\w+)\.$", hypothesis)
    return 0.8 if m and m.group(1) in premise else 0.1


def test_two_act_utterance_with_one_act_missing_is_unfaithful_per_utterance():
    ev, _ = evaluator(_value_rule, validate_references=False)
    turn = {"dialogue_id": "d1", "turn_index": 3, "utterance": "Queens is free at 5."}
    results = run(
        ev,
        [
            stylist_item("d1:3:0", **turn),  # Queens: realised
            stylist_item("d1:3:1", values=("Kings",), **turn),  # Kings: missing
            stylist_item("d2:1:0", dialogue_id="d2", turn_index=1, utterance="Queens it is."),
        ],
    )
    assert [r.scores["faithful"] for r in results] == [1.0, 0.0, 1.0]
    assert results[0].details["utterance"] == {"id": "d1:3", "keyed": True, "tampered_of": None}
    report = corpus_report(results, human={"d1:3:0": 1.0, "d1:3:1": 1.0, "d2:1:0": 1.0})
    assert report.sgsacc_act == pytest.approx(2 / 3)
    assert report.sgsacc_utterance == pytest.approx(1 / 2) and report.n_utterances == 2
    assert report.unkeyed_acts == 0
    assert report.human == {
        "human_act": 1.0,
        "human_utterance": 1.0,
        "agreement_act": pytest.approx(2 / 3),
        "agreement_utterance": pytest.approx(1 / 2),
        "n_human_acts": 3,
        "n_human_utterances": 2,
    }
    summary = SGSAccEvaluator.corpus_summary(results)
    assert list(summary)[:2] == ["sgsacc_utterance", "sgsacc_act"]  # the headline first


def test_tampered_copy_is_its_own_utterance_with_the_other_real_acts():
    from evaluators.utterances import group_units, utterance_key

    keys = {
        "u:1:0": utterance_key("u:1:0", {"dialogue_id": "u", "turn_index": 1}),
        "u:1:1": utterance_key("u:1:1", {"dialogue_id": "u", "turn_index": 1}),
        "u:1:0:neg": utterance_key(
            "u:1:0:neg", {"dialogue_id": "u", "turn_index": 1, "original_values": ["x"]}
        ),
        "solo": utterance_key("solo", {}),
    }
    assert group_units(keys) == {
        "u:1": ["u:1:0", "u:1:1"],
        "solo": ["solo"],
        "u:1~u:1:0:neg": ["u:1:1", "u:1:0:neg"],
    }
    assert not keys["solo"].keyed and keys["u:1:0:neg"].tampered_of == "u:1:0"


def test_candidates_are_never_repeated():
    # a description equal to the slot name gives the same sentence twice: kept once
    assert candidate_references("INFORM", "price", ["cheap"], "Price") == ["Price is cheap."]
    assert candidate_references("REQUEST", "city", [], "city") == ["Request city."]
    assert candidate_references("INFORM", "city", [], "City") == ["City."]


# -- the demo's tampered copies carry their real values in `tampered_from` -------------------
def _demo_rule(premise: str, hypothesis: str) -> float:
    """Value sentences by substring; boolean sentences by whether the premise negates."""
    m = re.search(r" is (.+)\.$", hypothesis)
    if m:
        return 0.8 if m.group(1).lower() in premise.lower() else 0.1
    negated = " not " in f" {premise} "
    says_no = hypothesis.endswith("? No.") or hypothesis.startswith("Does not")
    return 0.8 if negated == says_no else 0.1


def test_demo_tampered_copies_validate_with_tampered_from():
    from demo.loading import DEMO_DIR

    lines = (DEMO_DIR / "dialogue_faithfulness/tampered.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    items = [EvalItem(r["item_id"], {k: v for k, v in r.items() if k != "item_id"}) for r in rows]
    ev, _ = evaluator(_demo_rule)
    results = {r.item_id: r for r in run(ev, items)}
    assert set(results) == {
        "sgd:1_00000:9:1:tampered",
        "sgd:1_00000:9:0:tampered",
        "sgd:1_00000:3:0:tampered",
    }
    for res in results.values():
        assert res.status == "ok" and res.details["validated"] is True
        assert res.scores["faithful"] == 0.0  # the tampered act is not what was said
    little_hunan = results["sgd:1_00000:3:0:tampered"]
    assert little_hunan.details["reference"] == "Name of the restaurant is Little Hunan."
    assert little_hunan.details["validation"]["positive_entailed"] is True
    report = corpus_report(results.values())
    assert report.n_validated == 3 and report.sgsacc_act_validated == 0.0


def test_validated_per_utterance_leaves_out_an_utterance_with_a_failing_act():
    turn = {"dialogue_id": "u", "turn_index": 1, "utterance": "Kings or Bishops is free."}
    ev, _ = evaluator(context_rule)
    results = run(
        ev,
        [
            # validated (the ground truth names only Queens), unfaithful (no Queens said)
            stylist_item("u:1:0", reference_utterance="Your stylist Queens is free.", **turn),
            # faithful, but the negative "Bishops" is entailed too: validation fails
            stylist_item("u:1:1", values=("Kings",), **turn),
            # another utterance, validated and faithful
            stylist_item("v:2:0", dialogue_id="v", turn_index=2, utterance="Stylist Queens."),
        ],
    )
    assert [r.details["validated"] for r in results] == [True, False, True]
    assert [r.scores["faithful"] for r in results] == [0.0, 1.0, 1.0]
    report = corpus_report(results)
    assert report.sgsacc_utterance == pytest.approx(1 / 2)  # all acts: u:1 is 0, v:2 is 1
    assert report.sgsacc_utterance_validated == 1.0  # u:1 is excluded, not counted as 0
    assert report.sgsacc_act_validated == pytest.approx(1 / 2)
    assert report.validation_fail_share_act == pytest.approx(1 / 3)
    assert report.validation_fail_share_utterance == pytest.approx(1 / 2)
    text = report_text(report)
    assert "validation fails on 0.3333 of acts and 0.5000 of utterances" in text
    summary = SGSAccEvaluator.corpus_summary(results)
    assert summary["validation_fail_share_utterance"] == pytest.approx(1 / 2)
