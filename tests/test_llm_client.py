"""The LLM client against the scripted OpenAI-compatible server (real openai package)."""

from __future__ import annotations

import asyncio

import pydantic
import pytest

from annotation_store import Store
from evaluators.llm.cache import MemoryCache
from evaluators.llm.client import LLMClient, LLMError, build_llm_client
from evaluators.llm.config import LLMConfig
from evaluators.llm.jsonparse import JSONExtractError, extract_json
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture, make_client

_fast_llm = fast_llm_fixture()

MSG = [{"role": "user", "content": "Reply in JSON."}]


class Score(pydantic.BaseModel):
    score: int
    note: str = ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"score": 3, "note": "ok",}\n```', {"score": 3, "note": "ok"}),
        ('Here you go:\n{"score": 4}\nHope that helps.', {"score": 4}),
        ('{"score": 2, "note": "path C:\\data"}', {"score": 2, "note": "path C:\\data"}),
        ('{"score": 5, "note": "cut off mid', {"score": 5, "note": "cut off mid"}),
        ('{"score": 1, "items": [1, 2, {"a": ', {"score": 1, "items": [1, 2]}),
        (
            "{'score': 2, 'note': 'python style', 'ok': true}",
            {"score": 2, "note": "python style", "ok": True},
        ),
        ('{"score": 3, "note": "multi\nline"}', {"score": 3, "note": "multi\nline"}),
    ],
)
def test_extract_json_repairs_mangled_replies(text: str, expected: dict) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no json at all", "score: 5"])
def test_extract_json_refuses_non_json(text: str) -> None:
    with pytest.raises(JSONExtractError):
        extract_json(text)


def test_no_endpoint_means_no_client() -> None:
    assert build_llm_client() is None


def test_fenced_trailing_comma_reply_is_parsed(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue('```json\n{"score": 4, "note": "fine",}\n```')
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert reply.ok and reply.value == Score(score=4, note="fine")
    assert reply.attempts == 1 and reply.tokens_in == 10 and reply.tokens_out == 5
    body = fast_llm.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["model"] == fast_llm.model and body["temperature"] == 0.0


def test_truncated_json_is_repaired(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(
        Reply(content='{"score": 2, "note": "the reply stops he', finish_reason="length")
    )
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert reply.value == Score(score=2, note="the reply stops he")


def test_invalid_reply_is_reasked_with_the_reason(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue("I think it deserves a four.", '{"score": "four"}', '{"score": 4}')
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert reply.value == Score(score=4) and reply.attempts == 3 and fast_llm.calls == 3
    reask = fast_llm.requests[2]["messages"]
    assert reask[-2] == {"role": "assistant", "content": '{"score": "four"}'}
    assert "score" in reask[-1]["content"] and "integer" in reask[-1]["content"]


def test_reask_limit_gives_a_failed_reply_with_raw(fast_llm: ScriptedLLM) -> None:
    fast_llm.handler = lambda req: Reply(content="still not JSON")
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert reply.value is None and not reply.ok
    assert reply.raw == "still not JSON" and "no valid JSON after 3 attempts" in reply.error
    assert fast_llm.calls == 3  # the first ask + json_retries (2) re-asks


def test_retries_on_429_and_500_then_succeeds(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(
        Reply(status=429, content="slow down", extra_headers={"Retry-After": "0"}),
        Reply(status=500),
        Reply(status=503),
        '{"score": 5}',
    )
    client = make_client()
    reply = asyncio.run(client.complete_json(MSG, Score))
    assert reply.value == Score(score=5)
    assert fast_llm.calls == 4 and client.http_calls == 4


def test_retry_limit_gives_failure_not_score(fast_llm: ScriptedLLM) -> None:
    fast_llm.handler = lambda req: Reply(status=500, content="down")
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert reply.value is None and "gave up after 4 attempts" in reply.error
    assert "HTTP 500" in reply.error and fast_llm.calls == 4  # 1 + WORKBENCH_LLM_MAX_RETRIES=3


def test_client_errors_are_not_retried(fast_llm: ScriptedLLM) -> None:
    fast_llm.handler = lambda req: Reply(status=401, content="bad key")
    with pytest.raises(LLMError, match="HTTP 401"):
        asyncio.run(make_client().complete(MSG))
    assert fast_llm.calls == 1


def test_refused_response_format_steps_down_once_per_client(fast_llm: ScriptedLLM) -> None:
    def handler(req: dict) -> Reply:
        fmt = (req.get("response_format") or {}).get("type")
        if fmt == "json_schema":
            return Reply(status=400, content="response_format json_schema is not supported")
        return Reply(content='{"score": 3}')

    fast_llm.handler = handler
    client = make_client()
    assert asyncio.run(client.complete_json(MSG, Score)).value == Score(score=3)
    assert asyncio.run(
        client.complete_json([{"role": "user", "content": "again, JSON"}], Score)
    ).value == Score(score=3)
    kinds = [(r.get("response_format") or {}).get("type") for r in fast_llm.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert client.json_mode == "json_object"


def test_cached_rerun_makes_zero_calls_through_the_store(
    fast_llm: ScriptedLLM, store: Store
) -> None:
    fast_llm.queue('{"score": 1}')
    first = asyncio.run(make_client(store).complete_json(MSG, Score))
    again = asyncio.run(make_client(store).complete_json(MSG, Score))  # a fresh client
    assert first.value == again.value == Score(score=1)
    assert not first.cached and again.cached and fast_llm.calls == 1
    assert again.tokens_in == 0 and again.cost == 0.0


def test_api_key_never_reaches_the_cache(fast_llm: ScriptedLLM, store: Store) -> None:
    import sqlalchemy as sa

    fast_llm.queue('{"score": 1}')
    asyncio.run(make_client(store).complete_json(MSG, Score))
    with store.read() as s:
        rows = s.execute(sa.text("select * from llm_cache")).all()
    assert rows and all("test-key" not in str(row) for row in rows)


def test_n_samples_and_salted_cache(fast_llm: ScriptedLLM) -> None:
    fast_llm.handler = lambda req: Reply(content="4")
    client = make_client(MemoryCache())
    r0 = asyncio.run(client.complete(MSG, n=20, temperature=1.0, cache_salt="run:0"))
    assert len(r0.texts) == 20 and fast_llm.calls == 1 and fast_llm.requests[0]["n"] == 20
    asyncio.run(client.complete(MSG, n=20, temperature=1.0, cache_salt="run:1"))
    assert fast_llm.calls == 2  # another run index is another draw
    again = asyncio.run(client.complete(MSG, n=20, temperature=1.0, cache_salt="run:0"))
    assert fast_llm.calls == 2 and again.cached and again.calls == 0


def test_server_ignoring_n_is_topped_up_one_by_one(fast_llm: ScriptedLLM) -> None:
    fast_llm.handler = lambda req: Reply(content="3", n=1)
    cache = MemoryCache()
    reply = asyncio.run(make_client(cache).complete(MSG, n=5, temperature=1.0, cache_salt=0))
    assert reply.texts == ["3"] * 5 and fast_llm.calls == 5
    asyncio.run(make_client(cache).complete(MSG, n=5, temperature=1.0, cache_salt=0))
    assert fast_llm.calls == 5


def test_cost_from_price_env(fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_PRICE_IN", "2.0")
    monkeypatch.setenv("WORKBENCH_LLM_PRICE_OUT", "10.0")
    fast_llm.queue(Reply(content="ok", prompt_tokens=1000, completion_tokens=100))
    reply = asyncio.run(make_client().complete(MSG))
    assert reply.cost == pytest.approx((1000 * 2.0 + 100 * 10.0) / 1e6)


def test_unknown_model_costs_nothing() -> None:
    assert LLMConfig(model="my-local-model").cost(10_000, 10_000) == 0.0


def test_concurrency_limit_is_respected(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_CONCURRENCY", "4")
    fast_llm.handler = lambda req: Reply(content="x", delay_s=0.1)
    client = make_client()

    async def many() -> None:
        await asyncio.gather(
            *(client.complete([{"role": "user", "content": str(i)}]) for i in range(12))
        )

    import time

    start = time.perf_counter()
    asyncio.run(many())
    elapsed = time.perf_counter() - start
    assert fast_llm.calls == 12
    assert 0.28 <= elapsed < 1.0  # 12 calls / 4 at a time x 0.1 s = 3 waves


def test_azure_client_is_built_with_api_version() -> None:
    cfg = LLMConfig(
        model="dep", base_url="https://x.openai.azure.com", api_key="k", api_version="2024-06-01"
    )
    client = LLMClient(cfg)
    made = client._make_openai()
    import openai

    assert isinstance(made, openai.AsyncAzureOpenAI) and made.max_retries == 0
