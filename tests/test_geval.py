"""G-Eval: sampled mean, probability-weighted score, fallback to single requests."""

from __future__ import annotations

import math

import pytest

from evaluators.base import EvalItem
from evaluators.builtin.geval import parse_sample, weighted_score
from evaluators.llm.prompts import load_prompt, prompts_hash
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

ITEM = EvalItem(
    "q",
    {
        "query": "How do I bake a chocolate cake?",
        "response": "Preheat the oven and mix the ingredients.",
    },
    kind="intent_resolution",
)
ACT = EvalItem(
    "a",
    {
        "claim": "Junun is a book.",
        "evidence": "Junun is a film.",
        "label": "FALSE",
        "explanation": "It is a film, not a book.",
    },
    kind="actionability",
)


def _lp(digit_probs: dict[str, float]) -> list[dict]:
    top = [{"token": t, "logprob": math.log(p)} for t, p in digit_probs.items()]
    best = max(top, key=lambda e: e["logprob"])
    return [{"token": best["token"], "logprob": best["logprob"], "top_logprobs": top}]


def test_sample_mean_without_logprobs(fast_llm: ScriptedLLM) -> None:
    texts = iter(["4", "5", "3", "4"] * 5)
    fast_llm.handler = lambda req: Reply(content=next(texts), n=1)  # server ignores n
    [res] = run_items("geval", [ITEM], settings={"samples": 4})
    assert res.details["mode"] == "sample_mean" and res.details["sample_mean_1_5"] == 4.0
    assert res.scores == {"resolution": pytest.approx(0.75)}  # (4 - 1) / 4
    assert fast_llm.calls == 4 and fast_llm.requests[0]["temperature"] == 1.0


def test_one_request_with_n_and_weighted_logprobs(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(Reply(content="4", logprobs=_lp({"4": 0.6, "5": 0.3, "3": 0.1})))
    [res] = run_items("geval", [ACT], settings={"score": "weighted"})
    body = fast_llm.requests[0]
    assert fast_llm.calls == 1 and body["n"] == 20 and body["top_logprobs"] == 20
    assert body["temperature"] == 1.0 and body["top_p"] == 1.0  # the paper's settings
    weighted = 0.6 * 4 + 0.3 * 5 + 0.1 * 3
    assert res.details["mode"] == "logprobs_weighted" and res.details["valid_samples"] == 20
    assert res.details["weighted_1_5"] == pytest.approx(weighted)
    assert res.scores["actionability"] == pytest.approx((weighted - 1) / 4 * 5)


def test_default_is_the_20_sample_mean_even_with_logprobs(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(Reply(content="4", logprobs=_lp({"4": 0.6, "5": 0.3, "3": 0.1})))
    [res] = run_items("geval", [ACT])
    assert res.details["mode"] == "sample_mean" and res.details["score_setting"] == "mean"
    assert res.details["weighted_1_5"] is not None  # computed, shown, not the score
    assert res.scores["actionability"] == pytest.approx((4 - 1) / 4 * 5)
    assert res.signature.settings["score"] == "mean"


def test_weighted_without_logprobs_fails_instead_of_switching(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(Reply(content="4"))
    [res] = run_items("geval", [ACT], settings={"score": "weighted", "use_logprobs": False})
    assert res.status == "failed" and "log-probabilities" in res.error


def test_keep_mapping_puts_the_grade_on_the_0_5_points(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(Reply(content="1"))
    [res] = run_items("geval", [ACT], settings={"scale_mapping": "keep"})
    assert res.scores["actionability"] == pytest.approx(1.0)  # stretch would give 0.0
    assert res.details["scale_mapping"] == "keep"
    assert res.signature.settings["scale_mapping"] == "keep"


def test_no_valid_sample_is_a_failure(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(Reply(content="excellent"))
    [res] = run_items("geval", [ITEM])
    assert res.status == "failed" and not res.scores and res.raw_reply.startswith("excellent")


def test_parsers() -> None:
    assert parse_sample(" 3") == 3 and parse_sample("Score: 5.") == 5 and parse_sample("9") is None
    assert weighted_score(None) is None
    assert weighted_score(
        [{"token": "Score", "logprob": 0, "top_logprobs": []}, *_lp({"2": 0.5, "3": 0.5})]
    ) == pytest.approx(2.5)


def test_each_builtin_kind_gets_its_own_template_and_an_item_without_kind_fails(
    fast_llm: ScriptedLLM,
) -> None:
    fast_llm.queue(Reply(content="4"), Reply(content="4"))
    [act, res] = run_items("geval", [ACT, ITEM], settings={"samples": 1})
    values = {k: str(v) for k, v in ACT.fields.items()}
    # the two items are asked concurrently: either request may arrive first
    sent = [r["messages"] for r in fast_llm.requests]
    assert load_prompt("geval_actionability.v1").render(values) in sent
    assert act.details["prompt_versions"] == ["geval_actionability.v1"]
    assert res.details["prompt_versions"] == ["geval_intent_resolution.v1"]
    assert act.signature.prompt_hash == prompts_hash(
        ["geval_actionability.v1", "geval_generic.v1", "geval_intent_resolution.v1"]
    )
    [bad] = run_items("geval", [EvalItem("x", ACT.fields)])
    assert bad.status == "failed" and "no task kind" in bad.error
