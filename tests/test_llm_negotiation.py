"""The structured-output mode is negotiated with the endpoint, against the scripted server.

The refusal messages are the ones llama-cpp-python's server 0.3.36 gives (HTTP 500 with a
validation message for ``json_schema``), so these hold without the real model too.
"""

from __future__ import annotations

import asyncio

import pydantic
import pytest

from annotation_store import Store
from evaluators.base import EvalItem
from evaluators.builtin.intent_resolution import IntentResolution
from evaluators.llm.negotiate import is_refusal
from jobs.runner import run_evaluator
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import dumps, fast_llm_fixture, last_user_message, make_client

_fast_llm = fast_llm_fixture()

#: What llama_cpp.server 0.3.36 answers a json_schema response_format with.
LLAMA_CPP_REFUSAL = (
    500,
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input "
    "should be 'text' or 'json_object' [type=literal_error, input_value='json_schema', "
    "input_type=str]",
)
RECORD = {
    "explanation": "A recipe.",
    "agent_perceived_intent": "give a recipe",
    "actual_user_intent": "bake a cake",
    "correct_intent_detected": True,
    "intent_resolved": True,
    "resolution_score": 0.8,
}


class Score(pydantic.BaseModel):
    score: int


def _project(store: Store, n: int = 3) -> None:
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [
            {"item_id": f"i{k}", "fields": {"query": f"question {k}", "response": f"answer {k}"}}
            for k in range(n)
        ],
    )


def _formats(server: ScriptedLLM) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.requests]


def test_a_500_naming_the_format_steps_down_once_and_is_not_retried(
    fast_llm: ScriptedLLM,
) -> None:
    fast_llm.refuse["json_schema"] = LLAMA_CPP_REFUSAL
    fast_llm.handler = lambda req: Reply(content='{"score": 4}')
    client = make_client()
    reply = asyncio.run(client.complete_json([{"role": "user", "content": "Grade it."}], Score))
    assert reply.ok and reply.value == Score(score=4) and reply.mode == "json_object"
    assert _formats(fast_llm) == ["json_schema", "json_object"]  # 1 refusal, no 5 retries
    # json_object cannot hold the reply to the schema: the prompt carries it
    sent = last_user_message(fast_llm.requests[1])
    assert sent.startswith("Grade it.") and '"score"' in sent and "JSON schema" in sent
    assert "JSON schema" not in last_user_message(fast_llm.requests[0])


def test_both_json_modes_refused_falls_back_to_text_with_the_parser(
    fast_llm: ScriptedLLM,
) -> None:
    fast_llm.refuse["json_schema"] = (422, "response_format json_schema is not supported")
    fast_llm.refuse["json_object"] = (400, "unsupported response_format")
    fast_llm.handler = lambda req: Reply(content='Sure! Here it is: {"score": 2} Hope it helps.')
    client = make_client()
    reply = asyncio.run(client.complete_json([{"role": "user", "content": "Grade."}], Score))
    assert reply.ok and reply.value == Score(score=2) and reply.mode == "text"
    assert _formats(fast_llm) == ["json_schema", "json_object", None]
    assert '"score"' in last_user_message(fast_llm.requests[-1])


def test_a_plain_server_fault_is_retried_and_not_taken_for_a_refusal(
    fast_llm: ScriptedLLM,
) -> None:
    fast_llm.queue(Reply(status=500, content="CUDA out of memory"), Reply(content='{"score": 1}'))
    client = make_client()
    reply = asyncio.run(client.complete_json([{"role": "user", "content": "Grade."}], Score))
    assert reply.ok and reply.mode == "json_schema" and client.json_mode == "json_schema"
    assert _formats(fast_llm) == ["json_schema", "json_schema"]


@pytest.mark.parametrize(
    ("status", "message", "refused"),
    [
        (500, LLAMA_CPP_REFUSAL[1], True),
        (400, "bad request", True),  # the probe's only optional parameter
        (415, "response_format is not supported here", True),
        (404, "model 'x' not found; response_format ignored", False),  # about the caller
        (429, "slow down (json_schema)", False),
        (500, "internal error", False),
        (503, "overloaded", False),
    ],
)
def test_what_counts_as_a_refusal(status: int, message: str, refused: bool) -> None:
    assert is_refusal(status, message, only_response_format=True) is refused


def test_a_run_negotiates_before_it_signs_and_says_so(fast_llm: ScriptedLLM, store: Store) -> None:
    fast_llm.refuse["json_schema"] = LLAMA_CPP_REFUSAL
    fast_llm.handler = lambda req: Reply(content=dumps(RECORD))
    _project(store)
    progress = run_evaluator(store, "ir", "intent_resolution")
    assert (progress.done, progress.failed) == (3, 0)
    # one probe per mode, then every item in json_object from its first request
    assert [(p.get("response_format") or {}).get("type") for p in fast_llm.probes] == [
        "json_schema",
        "json_object",
    ]
    assert _formats(fast_llm) == ["json_object"] * 3
    [run] = store.runs("ir")
    stored = store.run_results(run.id)
    assert {r.signature.settings["output_mode"] for r in stored} == {"json_object"}
    assert {r.details["output_mode"] for r in stored} == {"json_object"}
    assert IntentResolution.run_notes(stored) == [
        "structured output: json_object with the schema in the prompt (the endpoint refused "
        "json_schema) for 3 of 3 items"
    ]
    # a re-run with a fresh client: the mode comes from the cache, the replies too
    fast_llm.reset()
    again = run_evaluator(store, "ir", "intent_resolution")
    assert (again.done, again.failed) == (3, 0)
    assert fast_llm.calls == 0 and fast_llm.probes == []
    runs = store.runs("ir")
    assert runs[0].signature_text == runs[1].signature_text  # the same configuration


def test_the_signature_names_a_mode_the_endpoint_does_not_enforce(fast_llm: ScriptedLLM) -> None:
    from evaluators.base import EvalContext
    from evaluators.registry import create_evaluator

    plain = create_evaluator("intent_resolution", None, EvalContext(llm=make_client()))
    assert "output_mode" not in plain.signature().settings  # json_schema: as before
    fast_llm.refuse["json_schema"] = LLAMA_CPP_REFUSAL
    fast_llm.refuse["json_object"] = LLAMA_CPP_REFUSAL
    judge = create_evaluator("intent_resolution", None, EvalContext(llm=make_client()))
    assert judge.signature().settings["output_mode"] == "text"
    assert plain.signature().settings_hash != judge.signature().settings_hash
    geval = create_evaluator("geval", None, EvalContext(llm=make_client()))
    assert "output_mode" not in geval.signature().settings  # plain text by design
    assert len(fast_llm.probes) == 3  # json_schema ok; then json_schema, json_object refused


def test_geval_counts_only_form_answers_and_fails_with_too_few(fast_llm: ScriptedLLM) -> None:
    from tests.test_llm_support import run_items

    item = EvalItem("q", {"query": "Where is my parcel?", "response": "It ships today."})
    item = EvalItem(item.item_id, item.fields, kind="intent_resolution")
    prose = ["1. Read the user", "You scored 4 out", "No, I'm not", "Score: 4", "5", "3."]
    texts = iter(prose * 4)
    fast_llm.handler = lambda req: Reply(content=next(texts), n=1)
    [res] = run_items("geval", [item], settings={"samples": 6})
    assert res.status == "ok" and res.details["valid_samples"] == 3
    assert res.details["samples"] == [None, None, None, 4.0, 5.0, 3.0]
    assert res.details["sample_mean_1_5"] == pytest.approx(4.0)
    fast_llm.reset()
    texts = iter(["1. Read", "4", "No", "It is 2", "Sure", "5"])
    fast_llm.handler = lambda req: Reply(content=next(texts), n=1)
    [bad] = run_items("geval", [item], settings={"samples": 6}, run_index=1)
    assert bad.status == "failed" and not bad.scores
    assert bad.error.startswith("only 2 of 6 samples were a score from 1 to 5 (at least 3")
    assert bad.details["valid_samples"] == 2 and bad.details["received_samples"] == 6
