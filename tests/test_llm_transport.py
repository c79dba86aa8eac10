"""The HTTP layer under the openai client (aiohttp or httpx) and the runs' event loop."""

from __future__ import annotations

import asyncio
import json
import threading

import openai
import pydantic
import pytest

from annotation_store import Store
from common import event_loop
from evaluators.llm.config import load_llm_config, one_of
from evaluators.llm.http import HTTP_BACKENDS
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture, make_client

_fast_llm = fast_llm_fixture()
MSG = [{"role": "user", "content": "Reply in JSON."}]


class Score(pydantic.BaseModel):
    score: int


def test_http_setting_defaults_to_aiohttp_and_names_the_choices() -> None:
    assert one_of(None, HTTP_BACKENDS, "X") == "aiohttp"
    assert one_of(" HTTPX ", HTTP_BACKENDS, "X") == "httpx"
    with pytest.raises(ValueError, match="WORKBENCH_LLM_HTTP must be one of aiohttp, httpx"):
        one_of("curl", HTTP_BACKENDS, "WORKBENCH_LLM_HTTP")


@pytest.mark.parametrize("backend", ["aiohttp", "httpx"])
def test_both_backends_answer_retry_and_time_out_alike(
    backend: str, fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_HTTP", backend)
    monkeypatch.setenv("WORKBENCH_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("WORKBENCH_LLM_BACKOFF", "0.01")
    client = make_client()
    assert client.config.http == backend
    transport = client._make_openai()._client
    assert isinstance(transport, openai.DefaultAioHttpClient) == (backend == "aiohttp")
    fast_llm.queue(
        Reply(content="slow down", status=429),
        Reply(content='{"score": 1}', delay_s=2.0),  # past the 0.3 s timeout
        '{"score": 3}',
    )

    async def one_call() -> object:
        try:
            return await client.complete_json(MSG, Score)
        finally:
            await client.aclose()

    reply = asyncio.run(one_call())
    assert reply.value == Score(score=3) and fast_llm.calls == 3 and client.http_calls == 3


def test_a_bad_http_setting_is_named_when_the_endpoint_is_read(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_HTTP", "requests")
    with pytest.raises(ValueError, match="WORKBENCH_LLM_HTTP"):
        load_llm_config()


def test_runs_use_uvloop_unless_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvloop

    async def loop_type() -> type:
        return type(asyncio.get_running_loop())

    assert event_loop.run(loop_type()) is uvloop.Loop
    monkeypatch.setenv("WORKBENCH_EVENT_LOOP", "asyncio")
    assert event_loop.run(loop_type()) is not uvloop.Loop


def test_an_evaluator_run_goes_through_uvloop_and_aiohttp(
    fast_llm: ScriptedLLM, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvloop

    from jobs import runner

    seen: list[type] = []
    real_pipeline = runner._pipeline

    async def spy(*args: object, **kwargs: object) -> bool:
        seen.append(type(asyncio.get_running_loop()))
        return await real_pipeline(*args, **kwargs)

    monkeypatch.setattr(runner, "_pipeline", spy)
    fast_llm.handler = lambda req: Reply(content=json.dumps(INTENT_RESOLUTION_REPLY))
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [{"item_id": f"q{i}", "fields": {"query": f"q {i}", "response": "r"}} for i in range(5)],
    )
    progress = runner.run_evaluator(store, "ir", "intent_resolution")
    assert seen == [uvloop.Loop]
    assert (progress.done, progress.failed, fast_llm.calls) == (5, 0, 5)


def test_a_run_from_inside_a_running_loop_works_like_a_notebook_cell() -> None:
    """Jupyter runs cells inside a loop; run() must still finish the coroutine and return."""

    async def thread_name() -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    async def cell() -> tuple[str, str]:
        return event_loop.run(thread_name()), threading.current_thread().name

    inner, outer = asyncio.run(cell())
    assert inner == "workbench-event-loop" and outer == "MainThread"


def test_an_error_inside_a_nested_run_reaches_the_caller() -> None:
    async def fails() -> None:
        raise ValueError("scripted failure")

    async def cell() -> None:
        event_loop.run(fails())

    with pytest.raises(ValueError, match="scripted failure"):
        asyncio.run(cell())
