"""Intent resolution judge: chocolate-cake example, grid validation, failures stored."""

from __future__ import annotations

import json

from annotation_store import Store
from evaluators.base import EvalItem
from jobs.runner import run_evaluator
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import dumps, fast_llm_fixture, run_items

_fast_llm = fast_llm_fixture()

QUERY = "How do I bake a chocolate cake?"
RESPONSE = (
    "Preheat your oven to 350F. Grease a pan. Combine 1 3/4 cups flour, 1 cup sugar, "
    "3/4 cup cocoa, 1 1/2 tsp baking powder, 2 eggs, 1 cup milk and 1/2 cup oil. "
    "Bake 30-35 minutes until a toothpick comes out clean."
)
RECORD = {
    "explanation": "A detailed recipe; lacks finer baking tips.",
    "conversation_has_intent": True,
    "agent_perceived_intent": "provide a detailed chocolate cake recipe",
    "actual_user_intent": "bake a chocolate cake",
    "correct_intent_detected": True,
    "intent_resolved": True,
    "resolution_score": 0.8,
}


def test_chocolate_cake_scores_point_eight_and_passes(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue("Let's think step by step... done.\n```json\n" + dumps(RECORD) + "\n```")
    [res] = run_items(
        "intent_resolution", [EvalItem("cake", {"query": QUERY, "response": RESPONSE})]
    )
    assert res.scores == {"resolution": 0.8}
    assert res.details["result"] == "pass" and res.details["threshold"] == 0.6
    assert res.details["record"]["actual_user_intent"] == "bake a chocolate cake"
    assert res.details["prompt_version"] == "intent_resolution.v2"
    assert QUERY in fast_llm.requests[0]["messages"][-1]["content"]
    # the reasoning written before the record is kept and shown
    assert res.details["thought_chain"] == "Let's think step by step... done."
    assert res.reasoning.startswith("Let's think step by step... done.")


def test_thought_chain_comes_first_and_is_stored(fast_llm: ScriptedLLM) -> None:
    chain = "Let's think step by step: the user wants a recipe; it gives one without tips."
    fast_llm.queue(dumps({"thought_chain": chain, **RECORD}))
    [res] = run_items("intent_resolution", [EvalItem("c", {"query": QUERY, "response": RESPONSE})])
    assert res.details["thought_chain"] == chain and "thought_chain" not in res.details["record"]
    assert res.reasoning == f"{chain}\n\nExplanation: {RECORD['explanation']}"
    schema = json.dumps(fast_llm.requests[0].get("response_format", {}))
    prompt = fast_llm.requests[0]["messages"][-1]["content"]
    assert prompt.index('"thought_chain"') < prompt.index('"explanation"')
    assert "thought_chain" in schema or "thought_chain" in prompt
    fast_llm.reset()
    fast_llm.queue(dumps(RECORD))
    [res] = run_items(
        "intent_resolution",
        [EvalItem("c", {"query": QUERY, "response": RESPONSE})],
        settings={"threshold": 0.9},
    )
    assert res.details["result"] == "fail" and res.details["threshold"] == 0.9


def test_threshold_setting(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(RECORD))
    [res] = run_items(
        "intent_resolution",
        [EvalItem("c", {"query": QUERY, "response": RESPONSE})],
        settings={"threshold": 1.0},
    )
    assert res.details["result"] == "fail"


def test_off_grid_score_is_reasked(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(dict(RECORD, resolution_score=0.75)), dumps(RECORD))
    [res] = run_items("intent_resolution", [EvalItem("c", {"query": QUERY, "response": RESPONSE})])
    assert res.scores["resolution"] == 0.8 and fast_llm.calls == 2
    assert "0.75 is not one of" in fast_llm.requests[1]["messages"][-1]["content"]


def test_failure_after_retry_limit_stored_not_scored(fast_llm: ScriptedLLM, store: Store) -> None:
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir", [{"item_id": "cake", "fields": {"query": QUERY, "response": RESPONSE}}]
    )
    fast_llm.queue(Reply(status=429), Reply(status=500), Reply(status=500), Reply(status=502))
    progress = run_evaluator(store, "ir", "intent_resolution")
    assert progress.failed == 1 and fast_llm.calls == 4
    [stored] = store.item_results("ir", "cake")
    assert stored["result_status"] == "failed" and not stored["scores"]
    assert "gave up after 4 attempts" in stored["error"]
    # next: the model answers, but never in a usable form -> failure with the raw reply
    fast_llm.handler = lambda req: Reply(content='{"resolution_score": "high"}')
    run_evaluator(store, "ir", "intent_resolution")
    last = store.item_results("ir", "cake")[-1]
    assert last["result_status"] == "failed" and last["raw_reply"] == '{"resolution_score": "high"}'
    assert store.scores_frame("ir").empty or "resolution" not in str(store.scores_frame("ir"))


def test_signature_carries_prompt_hash(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(RECORD))
    [res] = run_items("intent_resolution", [EvalItem("c", {"query": QUERY, "response": RESPONSE})])
    from evaluators.llm.prompts import prompts_hash

    assert res.signature.prompt_hash == prompts_hash(["intent_resolution.v2"])
    assert res.signature.model == fast_llm.model
