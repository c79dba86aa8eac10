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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a number running into the cut may be the start of a longer one: dropped
        ('{"explanation": "fine", "answer": 4', {"explanation": "fine"}),
        ('{"answer": 0.', None),
        ('{"facts": ["a", "b"], "score": 1', {"facts": ["a", "b"]}),
        # a number followed by a delimiter is complete
        ('{"answer": 4, "explanation": "cut he', {"answer": 4, "explanation": "cut he"}),
        ('{"answer": 4\n', {"answer": 4}),
        ('{"x": [1, 2, 3', {"x": [1, 2]}),
    ],
)
def test_a_number_at_the_cut_is_not_read(text: str, expected: dict | None) -> None:
    if expected is None:
        with pytest.raises(JSONExtractError, match="cut off"):
            extract_json(text)
    else:
        assert extract_json(text) == expected


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


def test_a_failed_reply_is_not_cached_and_is_asked_again_on_a_rerun(
    fast_llm: ScriptedLLM, store: Store
) -> None:
    fast_llm.handler = lambda req: Reply(content="still not JSON")
    failed = asyncio.run(make_client(store).complete_json(MSG, Score))
    assert not failed.ok and fast_llm.calls == 3
    fast_llm.handler = lambda req: Reply(content='{"score": 2}')
    again = asyncio.run(make_client(store).complete_json(MSG, Score))  # a fresh client
    # the first request is asked again (nothing of the failed run was cached)
    assert again.value == Score(score=2) and fast_llm.calls == 4 and not again.cached
    third = asyncio.run(make_client(store).complete_json(MSG, Score))
    assert third.value == Score(score=2) and third.cached and fast_llm.calls == 4


def test_an_unusable_reply_cached_earlier_is_not_served(fast_llm: ScriptedLLM) -> None:
    cache = MemoryCache()
    fast_llm.queue('{"score": 5}', "")
    assert asyncio.run(make_client(cache).complete_json(MSG, Score)).value == Score(score=5)
    assert asyncio.run(make_client(cache).complete(MSG)).texts == [""]
    assert len(cache.entries) == 1  # the empty completion was not kept
    # as an older version stored it: a reply that does not validate under the key
    [entry] = cache.entries.values()
    entry["texts"] = ["no JSON here"]
    fast_llm.queue('{"score": 3}')
    reply = asyncio.run(make_client(cache).complete_json(MSG, Score))
    assert reply.value == Score(score=3) and reply.attempts == 1 and fast_llm.calls == 3


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


# -- timeouts, backoff, secrets, the key ------------------------------------------------------
class _SleepRecorder:
    """Stands in for the client module's ``asyncio``: records every backoff wait."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __getattr__(self, name: str) -> object:
        return getattr(asyncio, name)

    async def sleep(self, delay: float, result: object = None) -> object:
        self.waits.append(delay)
        await asyncio.sleep(0)
        return result


def _record_sleeps(monkeypatch: pytest.MonkeyPatch) -> _SleepRecorder:
    from evaluators.llm import client as client_mod

    recorder = _SleepRecorder()
    monkeypatch.setattr(client_mod, "asyncio", recorder)
    return recorder


def test_timeout_is_retried_then_succeeds(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_TIMEOUT", "0.3")
    fast_llm.queue(Reply(content='{"score": 1}', delay_s=2.0), '{"score": 2}')
    client = make_client()
    reply = asyncio.run(client.complete_json(MSG, Score))
    assert reply.value == Score(score=2) and fast_llm.calls == 2 and client.http_calls == 2


def test_timeout_is_retried_then_a_failure_after_the_retry_limit(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_TIMEOUT", "0.3")
    fast_llm.handler = lambda req: Reply(content='{"score": 1}', delay_s=2.0)
    sleeps = _record_sleeps(monkeypatch)
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert reply.value is None and not reply.ok
    assert "gave up after 4 attempts" in reply.error and "APITimeoutError" in reply.error
    assert fast_llm.wait_for_calls(4) == 4  # 1 + WORKBENCH_LLM_MAX_RETRIES=3
    assert len(sleeps.waits) == 3  # a backoff between attempts, none after the last


def test_timeout_failure_is_stored_as_a_failed_result_and_not_cached(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    import sqlalchemy as sa

    from jobs.runner import run_evaluator

    monkeypatch.setenv("WORKBENCH_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("WORKBENCH_LLM_MAX_RETRIES", "1")
    fast_llm.handler = lambda req: Reply(content='{"facts": ["x"]}', delay_s=2.0)
    store.create_project("im", "intent_match")
    store.upsert_items(
        "im", [{"item_id": "a", "fields": {"gold": "Book a flight", "predicted": "Fly"}}]
    )
    progress = run_evaluator(store, "im", "bifact")
    assert (progress.done, progress.failed, fast_llm.calls) == (1, 1, 2)
    [stored] = store.item_results("im", "a")
    assert stored["result_status"] == "failed" and not stored["scores"]
    assert "gave up after 2 attempts" in stored["error"] and "timed out" in stored["error"]
    with store.read() as s:
        assert s.execute(sa.text("select count(*) from llm_cache")).scalar() == 0


def test_backoff_doubles_between_attempts_even_at_the_jitter_extremes(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from evaluators.llm import client as client_mod

    monkeypatch.setenv("WORKBENCH_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("WORKBENCH_LLM_MAX_RETRIES", "4")
    # the largest jitter, then the smallest, alternately: the waits must still grow
    draws = iter([0.999999, 0.0] * 4)
    monkeypatch.setattr(client_mod, "random", SimpleNamespace(random=lambda: next(draws)))
    sleeps = _record_sleeps(monkeypatch)
    fast_llm.handler = lambda req: Reply(status=503, content="busy")
    reply = asyncio.run(make_client().complete_json(MSG, Score))
    assert not reply.ok and fast_llm.calls == 5 and len(sleeps.waits) == 4
    assert all(a < b for a, b in zip(sleeps.waits, sleeps.waits[1:], strict=False)), sleeps.waits
    for attempt, wait in enumerate(sleeps.waits):  # about 0.01 s, doubling
        assert 0.75 * 0.01 * 2**attempt <= wait < 1.25 * 0.01 * 2**attempt


def test_backoff_grows_with_real_jitter_and_is_capped(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_BACKOFF", "0.001")
    monkeypatch.setenv("WORKBENCH_LLM_MAX_RETRIES", "5")
    sleeps = _record_sleeps(monkeypatch)
    fast_llm.handler = lambda req: Reply(status=500, content="down")
    for _ in range(5):
        sleeps.waits.clear()
        with pytest.raises(LLMError, match="gave up after 6 attempts"):
            asyncio.run(make_client().complete(MSG, cache_salt=_))
        assert len(sleeps.waits) == 5
        assert all(a < b for a, b in zip(sleeps.waits, sleeps.waits[1:], strict=False))
    client = make_client()
    assert client._backoff(30) == 60.0  # never more than a minute


def test_retry_after_header_sets_the_wait(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    sleeps = _record_sleeps(monkeypatch)
    fast_llm.queue(
        Reply(status=429, content="slow down", extra_headers={"Retry-After": "0.05"}),
        '{"score": 5}',
    )
    assert asyncio.run(make_client().complete_json(MSG, Score)).value == Score(score=5)
    assert sleeps.waits == [0.05]


def _write_secrets(path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_endpoint_settings_come_from_streamlit_secrets(
    scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from evaluators.llm.config import load_llm_config

    secrets = tmp_path / "secrets.toml"
    _write_secrets(
        secrets,
        "[llm]\n"
        f'base_url = "{scripted_llm.base_url}"\n'
        'api_key = "key-from-secrets"\n'
        f'model = "{scripted_llm.model}"\n'
        "max_retries = 1\n"
        "timeout = 7.5\n"
        "concurrency = 3\n"
        'json_mode = "json_object"\n',
    )
    monkeypatch.setenv("WORKBENCH_SECRETS", str(secrets))  # what common/config.py reads
    config = load_llm_config()
    assert config is not None
    assert (config.base_url, config.api_key, config.model) == (
        scripted_llm.base_url,
        "key-from-secrets",
        scripted_llm.model,
    )
    assert (config.max_retries, config.timeout_s, config.concurrency) == (1, 7.5, 3)
    client = make_client()
    assert client._make_openai().api_key == "key-from-secrets"
    scripted_llm.queue('{"score": 3}')
    reply = asyncio.run(client.complete_json(MSG, Score))
    assert reply.value == Score(score=3)
    assert scripted_llm.requests[0]["model"] == scripted_llm.model
    assert scripted_llm.requests[0]["response_format"]["type"] == "json_object"


def test_flat_secret_keys_and_environment_precedence(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from evaluators.llm.config import load_llm_config

    secrets = tmp_path / "secrets.toml"
    _write_secrets(
        secrets,
        'WORKBENCH_LLM_BASE_URL = "http://127.0.0.1:9/v1"\n'
        'WORKBENCH_LLM_MODEL = "from-secrets"\n'
        "[llm]\n"
        'model = "from-section"\n'
        "max_retries = 2\n",
    )
    monkeypatch.setenv("WORKBENCH_SECRETS", str(secrets))
    config = load_llm_config()
    assert config is not None and config.base_url == "http://127.0.0.1:9/v1"
    assert config.model == "from-secrets" and config.max_retries == 2  # flat key first
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "from-env")
    assert load_llm_config().model == "from-env"  # the environment wins over secrets
    monkeypatch.setenv("WORKBENCH_SECRETS", str(tmp_path / "missing.toml"))
    monkeypatch.delenv("WORKBENCH_LLM_MODEL")
    assert load_llm_config() is None


SECRET_KEY = "sk-test-4f1c9a7e-must-never-be-stored"


def test_api_key_appears_nowhere_in_the_database_or_exports(
    fast_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    import json
    import os

    import sqlalchemy as sa

    from jobs.worker import drain, evaluate_params, submit_evaluate_job
    from tests.support.cli import run_cli_script

    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", SECRET_KEY)
    db_file = tmp_path / "wb.db"
    db_url = f"sqlite:///{db_file}"
    store = Store(db_url)
    store.create_project("im", "intent_match")
    store.upsert_items(
        "im",
        [
            {"item_id": "ok", "fields": {"gold": "Set an alarm for 7", "predicted": "Alarm at 7"}},
            {"item_id": "bad", "fields": {"gold": "Book a table", "predicted": "Reserve"}},
        ],
    )

    def handler(req: dict) -> Reply:
        text = req["messages"][-1]["content"]
        if "Book a table" in text:
            return Reply(content="not JSON at all")  # a failed result, with its raw reply
        if "atomic facts. An atomic fact" in text:
            return Reply(content=json.dumps({"facts": ["Set an alarm", "Time is 7"]}))
        return Reply(
            content=json.dumps(
                {
                    "predicted_facts": ["Alarm", "At 7"],
                    "gold_fact_coverage": [
                        {"fact": "Set an alarm", "reasoning": "r", "label": "C"},
                        {"fact": "Time is 7", "reasoning": "r", "label": "C"},
                    ],
                    "predicted_fact_accuracy": [
                        {"fact": "Alarm", "reasoning": "r", "label": "C"},
                        {"fact": "At 7", "reasoning": "r", "label": "C"},
                    ],
                }
            )
        )

    fast_llm.handler = handler
    job_id = submit_evaluate_job(store, "im", evaluate_params(["bifact"]))
    assert drain(store) == [job_id]
    statuses = sorted(
        r["result_status"] for i in ("ok", "bad") for r in store.item_results("im", i)
    )
    assert statuses == ["failed", "ok"]

    with store.read() as s:
        tables = sa.inspect(s.get_bind()).get_table_names()
        counts = {}
        for table in tables:
            rows = s.execute(sa.text(f'select * from "{table}"')).all()
            counts[table] = len(rows)
            leaked = [row for row in rows if SECRET_KEY in repr(tuple(row))]
            assert not leaked, f"the API key is stored in {table}"
    for table in ("evaluator_runs", "evaluator_results", "llm_cache", "jobs"):
        assert counts[table] > 0, f"{table} is empty: the scan would prove nothing"
    store.close()
    for path in db_file.parent.glob("wb.db*"):  # the file itself, with any journal or WAL
        assert SECRET_KEY.encode() not in path.read_bytes(), path.name

    env = {**os.environ, "WORKBENCH_LLM_API_KEY": SECRET_KEY}
    for what, suffix in (("items", ".jsonl"), ("annotations", ".csv"), ("scores", ".jsonl")):
        out = tmp_path / f"{what}{suffix}"
        proc = run_cli_script("--db", db_url, "export", what, "im", "--out", str(out), env=env)
        assert proc.returncode == 0, proc.stderr
        assert SECRET_KEY not in proc.stdout + proc.stderr
        assert SECRET_KEY not in out.read_text(encoding="utf-8"), out.name
    scores = (tmp_path / "scores.jsonl").read_text(encoding="utf-8")
    assert "bifact" in scores  # the export holds the run's results
