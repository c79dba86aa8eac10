"""Lexical baselines against the libraries' own documented examples."""

from __future__ import annotations

import asyncio

import pytest

from commands import main as cli_main
from evaluators import wordnet
from evaluators.base import EvalItem, NotConfiguredError
from evaluators.registry import create_evaluator

# sacrebleu's test_sentence_bleu.py example (its issue #98).
SB_REF = "producţia de zahăr brut se exprimă în zahăr alb;"
SB_SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
# sacrebleu's test_chrf.py sentence-level example.
CHRF_HYP = "Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře."
CHRF_REF = "Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."
# rouge-score README example: scorer.score(target, prediction).
RS_TARGET = "The quick brown fox jumps over the lazy dog"
RS_PRED = "The quick brown dog jumps on the log."
# The E2E-style pair of the offline-models notes.
EAGLE_HYP = (
    "The Eagle is an inexpensive Japanese place in the centre of the city close to Burger King."
)
EAGLE_REF = "The Eagle is a cheap Japanese restaurant in the city centre near Burger King."


def score(name: str, hyp: str, ref: str, **settings) -> dict:
    ev = create_evaluator(name, settings)
    [res] = asyncio.run(
        ev.evaluate([EvalItem("x", {"gold": ref, "predicted": hyp}, kind="intent_match")])
    )
    assert res.status == "ok", res.error
    return {"value": res.scores["match"], **res.details}


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({}, 8.493),  # exp smoothing, 13a
        ({"smooth_method": "add-k"}, 14.882),
        ({"smooth_method": "none"}, 0.0),
    ],
)
def test_bleu_matches_sacrebleu_sentence_tests(settings, expected):
    got = score("bleu", SB_SYS, SB_REF, direction="forward", **settings)["value"]
    assert got == pytest.approx(expected, abs=1e-3)


def test_chrf_matches_sacrebleu_sentence_test():
    got = score("chrf", CHRF_HYP, CHRF_REF, direction="forward", eps_smoothing=True)["value"]
    assert got == pytest.approx(39.14078509, abs=1e-4)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # stemmed tokens: 6 of 8 predicted unigrams in the 9 target ones -> F = 12/17
        ("rouge1", 12 / 17),
        # 2 shared bigrams (the quick, quick brown) of 7 and 8 -> F = 4/15
        ("rouge2", 4 / 15),
        # LCS "the quick brown jump the" = 5 -> P 5/8, R 5/9, F = 10/17
        ("rougeL", 10 / 17),
    ],
)
def test_rouge_readme_example(name, expected):
    assert score(name, RS_PRED, RS_TARGET)["value"] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bleu", 17.31),
        ("chrf", 56.22),
        ("rouge1", 0.645),
        ("rouge2", 0.345),
        ("rougeL", 0.581),
    ],
)
def test_eagle_pair_forward(name, expected):
    assert score(name, EAGLE_HYP, EAGLE_REF, direction="forward")["value"] == pytest.approx(
        expected, abs=5e-3
    )


def test_both_directions_average_forward_and_backward():
    both = score("bleu", EAGLE_HYP, EAGLE_REF)
    back = score("bleu", EAGLE_REF, EAGLE_HYP, direction="forward")["value"]
    assert both["forward"] == pytest.approx(17.3142, abs=1e-3)
    assert both["backward"] == pytest.approx(back)
    assert both["value"] == pytest.approx((both["forward"] + back) / 2)
    assert back != pytest.approx(both["forward"])  # BLEU is not symmetric


def test_signature_carries_sacrebleu_signature():
    sig = str(create_evaluator("bleu").signature())
    assert "tok:13a" in sig and "s:exp" in sig and "v:2.6.0" in sig


def test_missing_text_is_a_failure_not_a_score():
    ev = create_evaluator("chrf")
    [res] = asyncio.run(
        ev.evaluate([EvalItem("x", {"gold": "a", "predicted": ""}, kind="intent_match")])
    )
    assert res.status == "failed" and "predicted" in res.error and not res.scores


def test_generic_kind_uses_reference_column():
    ev = create_evaluator("rouge1")
    [res] = asyncio.run(
        ev.evaluate([EvalItem("x", {"text": RS_PRED, "reference": RS_TARGET}, kind="score")])
    )
    assert res.scores == {"label": pytest.approx(12 / 17)}


needs_wordnet = pytest.mark.skipif(
    wordnet.find_wordnet_dir() is None,
    reason="WordNet not installed: run scripts/install_wordnet.sh",
)


@needs_wordnet
def test_meteor_known_value_and_both_directions():
    fwd = score("meteor", EAGLE_HYP, EAGLE_REF, direction="forward")["value"]
    both = score("meteor", EAGLE_HYP, EAGLE_REF)
    assert fwd == pytest.approx(0.6213, abs=1e-4)
    assert both["backward"] == pytest.approx(0.5320, abs=1e-4)
    assert both["value"] == pytest.approx((0.6213 + 0.5320) / 2, abs=1e-4)


# nltk's docstrings for meteor_score / single_meteor_score (nltk/translate/meteor_score.py):
# this hypothesis scored against the first reference, or against all three (best one wins),
# is 0.6944 after rounding to four places.
NLTK_HYP = (
    "It is a guide to action which ensures that the military always obeys the commands of the party"
)
NLTK_REFS = (
    "It is a guide to action that ensures that the military will forever heed Party commands",
    "It is the guiding principle which guarantees the military forces always being under the "
    "command of the Party",
    "It is the practical guide for the army always to heed the directions of the party",
)


@needs_wordnet
def test_meteor_nltk_docstring_example_with_our_wordnet():
    from nltk.translate.meteor_score import meteor_score, single_meteor_score

    wn = wordnet.load_wordnet()
    hyp = NLTK_HYP.split()
    refs = [r.split() for r in NLTK_REFS]
    assert meteor_score(refs, hyp, wordnet=wn) == pytest.approx(0.6944, abs=1e-4)
    assert single_meteor_score(refs[0], hyp, wordnet=wn) == pytest.approx(0.6944, abs=1e-4)


@needs_wordnet
def test_meteor_evaluator_matches_nltk_on_docstring_example():
    from nltk.translate.meteor_score import single_meteor_score

    wn = wordnet.load_wordnet()
    # The evaluator takes one reference per item, so score each reference separately.
    forward = [score("meteor", NLTK_HYP, ref, direction="forward")["value"] for ref in NLTK_REFS]
    oracle = [single_meteor_score(r.split(), NLTK_HYP.split(), wordnet=wn) for r in NLTK_REFS]
    assert forward == pytest.approx(oracle, abs=1e-9)
    assert forward == pytest.approx([0.6944, 0.6250, 0.5114], abs=1e-4)
    # nltk's multi-reference score is the best single one: the documented 0.6944
    assert max(forward) == pytest.approx(0.6944, abs=1e-4)
    # default direction: mean of forward and of the roles swapped
    both = score("meteor", NLTK_HYP, NLTK_REFS[0])
    backward = single_meteor_score(NLTK_HYP.split(), NLTK_REFS[0].split(), wordnet=wn)
    assert both["forward"] == pytest.approx(oracle[0], abs=1e-9)
    assert both["backward"] == pytest.approx(backward, abs=1e-9)
    assert backward == pytest.approx(0.6320, abs=1e-4)
    assert both["value"] == pytest.approx((oracle[0] + backward) / 2, abs=1e-9)


def test_meteor_unavailable_without_wordnet(monkeypatch, tmp_path, sqlite_url, capsys):
    monkeypatch.setattr(wordnet, "candidate_dirs", lambda: [tmp_path])
    ev = create_evaluator("meteor")
    reason = ev.unavailable_reason()
    assert reason and "scripts/install_wordnet.sh" in reason and "\n" not in reason
    # the hint names the script by a path that exists (a wheel ships it too)
    assert f"run bash {wordnet.INSTALL_SCRIPT} " in reason and wordnet.INSTALL_SCRIPT.is_file()
    with pytest.raises(NotConfiguredError):
        ev.check_available()
    _intent_project(sqlite_url)
    assert cli_main(["--db", sqlite_url, "evaluate", "im", "--evaluator", "meteor"]) == 2
    assert "install_wordnet.sh" in capsys.readouterr().err


def _intent_project(url: str) -> None:
    from annotation_store import Store

    store = Store(url)
    store.create_project("im", "intent_match")
    store.upsert_items(
        "im",
        [
            {"item_id": "a", "fields": {"gold": RS_TARGET, "predicted": RS_PRED}},
            {"item_id": "b", "fields": {"gold": EAGLE_REF, "predicted": EAGLE_HYP}},
        ],
    )
    store.close()


def test_rouge1_through_the_cli(sqlite_url, capsys):
    from annotation_store import Store

    _intent_project(sqlite_url)
    assert cli_main(["--db", sqlite_url, "evaluate", "im", "--evaluator", "rouge1"]) == 0
    assert "2 evaluated, 0 failed" in capsys.readouterr().out
    store = Store(sqlite_url)
    frame = store.scores_frame("im")
    store.close()
    got = dict(zip(frame["item_id"], frame["score"], strict=True))
    assert got["a"] == pytest.approx(12 / 17)
    assert got["b"] == pytest.approx(0.645, abs=5e-3)


def test_the_compared_texts_are_the_kinds_declaration(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind declaring a text pair gets the baselines with no evaluator edit; an item of a
    kind that declares none fails with the reason (no kind is guessed from field names)."""
    from evaluators.judges.spec import SWAPPABLE
    from evaluators.registry import evaluators_for_kind
    from kinds.base import FieldType, HumanField, ItemField, TaskKind
    from kinds.registry import KINDS

    toy = TaskKind(
        name="toy_pair_kind",
        title="Toy pair",
        description="A summary against its source.",
        item_fields=(ItemField("summary"), ItemField("source")),
        human_fields_fn=lambda settings: (HumanField("faithful", FieldType.BINARY),),
        text_pair=("summary", "source", "faithful"),
        swappable=(("summary", "source"),),
    )
    KINDS.names()
    monkeypatch.setattr(KINDS, "_entries", {**KINDS._entries, toy.name: toy})
    assert "rougeL" in evaluators_for_kind("toy_pair_kind")
    assert "rougeL" not in evaluators_for_kind("categorical")
    assert SWAPPABLE["toy_pair_kind"] == (("summary", "source"),)
    assert SWAPPABLE["intent_match"] == (("gold", "predicted"), ("gold_facts", "predicted_facts"))
    assert "categorical" not in SWAPPABLE
    ev = create_evaluator("rouge1")
    fields = {"summary": RS_PRED, "source": RS_TARGET, "gold": "x", "predicted": "y"}
    toy_item, guessed = EvalItem("a", fields, kind="toy_pair_kind"), EvalItem("b", fields)
    ok, failed = asyncio.run(ev.evaluate([toy_item, guessed]))
    assert ok.scores == {"faithful": pytest.approx(12 / 17)}  # rouge-score's README pair
    assert (
        failed.status == "failed" and failed.error == "kind None declares no text pair to compare"
    )
