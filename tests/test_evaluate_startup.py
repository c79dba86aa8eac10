"""`evaluate` imports only what it runs: the registry's lazy references and the direct HTTP path."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pydantic
import pytest

import common.registry as registry
from annotation_store import Store
from common.registry import Registry, UnknownEntryError
from evaluators.builtin import BUILTIN
from evaluators.llm.client import LLMClient
from evaluators.llm.config import LLMConfig
from evaluators.llm.direct import DirectChat, SDKChat
from evaluators.llm.streams import StreamChat
from evaluators.registry import EVALUATORS
from tests.support.cli import ROOT
from tests.support.fresh_python import fresh_python
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM


class Score(pydantic.BaseModel):
    score: int


def test_the_lazy_table_names_every_builtin_and_the_class_that_registers_it() -> None:
    registered = {name: EVALUATORS.get(name) for name in EVALUATORS.names()}
    builtins = {n: c for n, c in registered.items() if c.__module__.startswith("evaluators.")}
    assert set(BUILTIN) == {n for n, c in builtins.items() if ".builtin." in c.__module__}
    for name, ref in BUILTIN.items():
        module, _, attr = ref.partition(":")
        assert (
            getattr(importlib.import_module(f".{module}", "evaluators.builtin"), attr)
            is (registered[name])
        )
    assert BUILTIN["rougeL"] == "lexical:RougeLEvaluator"
    assert EVALUATORS.lazy_refs()["rougeL"] == "evaluators.builtin.lexical:RougeLEvaluator"


def test_looking_up_one_evaluator_imports_only_its_module() -> None:
    loaded = fresh_python(
        """
        import json, sys
        from evaluators.registry import get_evaluator_class
        assert get_evaluator_class("bleu").name == "bleu"
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("evaluators."))))
        """
    )
    builtin = [m for m in loaded if m.startswith("evaluators.builtin.")]
    assert builtin == ["evaluators.builtin.lexical"]
    assert "evaluators.nli" not in loaded


@pytest.fixture
def _toy_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """toy_entries: a registry of str entries over two modules, ``alpha`` referenced
    lazily, ``beta`` found by discovery only."""
    pkg = tmp_path / "toy_entries"
    (pkg / "parts").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "reg.py").write_text(
        "from common.registry import Registry\n"
        "def check(name, obj):\n"
        "    if not isinstance(obj, str):\n"
        "        raise TypeError(f'toy {name!r}: {obj!r} is not a str')\n"
        "REG = Registry('toy', package='toy_entries.parts', check=check)\n"
        "REG.add_lazy('alpha', 'toy_entries.parts.a:ALPHA')\n"
    )
    (pkg / "parts" / "__init__.py").write_text("")
    for name, value in (("a", "alpha"), ("b", "beta")):
        (pkg / "parts" / f"{name}.py").write_text(
            f"from toy_entries.reg import REG\n{value.upper()} = {value.upper()!r}\n"
            f"REG.add({value!r}, {value.upper()})\nNUMBER = 7\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    before = list(registry._REGISTRIES)
    yield
    registry._REGISTRIES[:] = before
    for name in [m for m in sys.modules if m.startswith("toy_entries")]:
        del sys.modules[name]


@pytest.mark.usefixtures("_toy_package")
def test_a_lazy_name_imports_its_module_and_others_are_found_by_discovery() -> None:
    from toy_entries.reg import REG

    assert isinstance(REG, Registry)
    assert "toy_entries.parts.a" not in sys.modules  # registering a reference imports nothing
    assert REG.get("alpha") == "ALPHA"
    assert "toy_entries.parts.b" not in sys.modules  # the reference named module a only
    assert REG.get("beta") == "BETA"  # no reference: every module imported
    assert "beta" in REG and REG.names() == ["alpha", "beta"]
    with pytest.raises(UnknownEntryError, match="known: alpha, beta"):
        REG.get("gamma")


@pytest.mark.usefixtures("_toy_package")
def test_a_wrong_entry_or_reference_is_a_one_line_error_naming_it() -> None:
    from toy_entries.reg import REG

    with pytest.raises(ValueError, match=r"^toy 'delta': 'toy_entries.parts.a' is not a"):
        REG.add_lazy("delta", "toy_entries.parts.a")
    REG.add_lazy("seven", "toy_entries.parts.a:NUMBER")
    with pytest.raises(TypeError, match=r"^toy 'seven': 7 is not a str$"):
        REG.get("seven")
    REG.add_lazy("gone", "toy_entries.parts.a:MISSING")
    with pytest.raises(TypeError, match=r"^toy 'gone': 'toy_entries.parts.a:MISSING' names"):
        REG.get("gone")
    with pytest.raises(TypeError, match="not a str"):
        REG.add("eight", 8)
    assert "seven" not in REG._entries and "eight" not in REG._entries


def test_an_evaluator_registered_under_another_name_is_refused() -> None:
    bleu = EVALUATORS.get("bleu")
    with pytest.raises(TypeError, match=r"^evaluator 'bleu2': BleuEvaluator is named 'bleu'$"):
        EVALUATORS.add("bleu2", bleu)
    with pytest.raises(TypeError, match="is not an Evaluator subclass"):
        EVALUATORS.add("toy_object", object)
    assert "bleu2" not in EVALUATORS.names()


def test_adding_unless_present_adds_once() -> None:
    reg: Registry[str] = Registry("toy")
    assert reg.add_if_absent("a", "first") is True
    assert reg.add_if_absent("a", "second") is False
    assert reg.get("a") == "first"


def _intent_resolution_project(tmp_path: Path, n: int, scripted_llm: ScriptedLLM) -> str:
    """A database with an intent-resolution project of ``n`` items, the scripted server
    answering every call with a valid reply; returns the database URL."""
    db = f"sqlite:///{tmp_path / 'wb.db'}"
    store = Store(db)
    store.create_project("ir", "intent_resolution")
    rows = [{"item_id": f"q{i}", "fields": {"query": f"q {i}", "response": "r"}} for i in range(n)]
    store.upsert_items("ir", rows)
    store.close()
    scripted_llm.handler = lambda req: Reply(content=json.dumps(INTENT_RESOLUTION_REPLY))
    return db


def test_an_evaluate_process_imports_neither_openai_aiohttp_pandas_nor_other_evaluators(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    db = _intent_resolution_project(tmp_path, 3, scripted_llm)
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import runpy, sys\nsys.path.insert(0, '.')\n"
        "sys.argv = ['cli.py', *sys.argv[1:]]\n"
        "try:\n    runpy.run_path('cli.py', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = ('openai', 'aiohttp', 'pandas', 'evaluators.nli', 'evaluators.builtin.geval')\n"
        "print('LOADED', [m for m in heavy if m in sys.modules])\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "WORKBENCH_SECRETS": str(tmp_path / "none.toml"),
        "WORKBENCH_LLM_BASE_URL": scripted_llm.base_url,
        "WORKBENCH_LLM_MODEL": scripted_llm.model,
        "WORKBENCH_LLM_API_KEY": "test-key",
    }
    proc = subprocess.run(
        [
            sys.executable,
            str(probe),
            "--db",
            db,
            "evaluate",
            "ir",
            "--evaluator",
            "intent_resolution",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "intent_resolution: 3 evaluated, 0 failed, 0 cached" in proc.stdout, proc.stderr
    assert "LOADED []" in proc.stdout
    assert scripted_llm.calls == 3
    # the direct path sends what the SDK sent: the model and the messages, JSON schema mode
    request = scripted_llm.requests[0]
    assert request["model"] == scripted_llm.model
    assert request["response_format"]["type"] == "json_schema"
    assert scripted_llm.paths[0] == "/v1/chat/completions"


def test_an_evaluate_process_sends_its_first_call_before_importing_the_orm(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    db = _intent_resolution_project(tmp_path, 2, scripted_llm)
    probe = tmp_path / "probe.py"
    # what the process has loaded when it opens its first connection to the model server
    probe.write_text(
        textwrap.dedent(
            """
            import asyncio, runpy, sys
            sys.path.insert(0, '.')
            sys.argv = ['cli.py', *sys.argv[1:]]
            seen = []
            opener = asyncio.open_connection

            async def spy(*args, **kwargs):
                if not seen:
                    import annotation_store.models as models
                    orm = [m for m in sys.modules if m.startswith('sqlalchemy.orm')]
                    seen.append((len(orm), models._registry is not None))
                return await opener(*args, **kwargs)

            asyncio.open_connection = spy
            try:
                runpy.run_path('cli.py', run_name='__main__')
            except SystemExit:
                pass
            print('AT FIRST CALL', seen)
            """
        )
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "WORKBENCH_SECRETS": str(tmp_path / "none.toml"),
        "WORKBENCH_LLM_BASE_URL": scripted_llm.base_url,
        "WORKBENCH_LLM_MODEL": scripted_llm.model,
        "WORKBENCH_LLM_API_KEY": "test-key",
    }
    argv = [sys.executable, str(probe), "--db", db, "evaluate", "ir"]
    argv += ["--evaluator", "intent_resolution"]
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert "intent_resolution: 2 evaluated, 0 failed, 0 cached" in proc.stdout, proc.stderr
    # no sqlalchemy.orm module and no mapped class before the first call ...
    assert "AT FIRST CALL [(0, False)]" in proc.stdout
    # ... and the run, its results and its cache entries were stored as before
    store = Store(db)
    try:
        (run,) = store.runs("ir")
        assert (run.evaluator, run.status) == ("intent_resolution", "done")
        results = store.run_results(run.id)
        assert sorted(r.item_id for r in results) == ["q0", "q1"]
        assert {r.status for r in results} == {"ok"}
    finally:
        store.close()


def _client(server: ScriptedLLM, **overrides: object) -> LLMClient:
    config = LLMConfig(
        model=server.model,
        base_url=server.base_url,
        api_key="k",
        max_retries=1,
        backoff_base_s=0.001,
        **overrides,  # type: ignore[arg-type]
    )
    return LLMClient(config)


def _ask(client: LLMClient) -> object:
    async def call() -> object:
        try:
            return await client.complete_json([{"role": "user", "content": "x"}], Score)
        finally:
            await client.aclose()

    return asyncio.run(call())


def test_the_direct_path_reports_the_servers_own_error_message(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(Reply(content="model 'nope' is not loaded", status=404))
    client = _client(scripted_llm)
    reply = _ask(client)
    assert reply.error == "LLM call failed: HTTP 404: model 'nope' is not loaded"  # type: ignore[attr-defined]
    assert scripted_llm.calls == 1  # a 404 is not retried


def test_the_direct_path_retries_a_refused_connection_then_names_it() -> None:
    with ScriptedLLM() as server:
        base_url, model = server.base_url, server.model
    config = LLMConfig(model=model, base_url=base_url, max_retries=1, backoff_base_s=0.001)
    reply = _ask(LLMClient(config))
    assert reply.error.startswith(  # type: ignore[attr-defined]
        "LLM call failed: gave up after 2 attempts; last error: APIConnectionError: "
    )


@pytest.mark.parametrize(
    ("overrides", "proxy", "kind"),
    [
        ({}, None, StreamChat),
        ({}, "http://127.0.0.1:9", DirectChat),
        ({"http": "httpx"}, None, SDKChat),
        ({"api_version": "2024-06-01"}, None, SDKChat),
    ],
)
def test_the_sdk_serves_azure_and_httpx_only_and_aiohttp_a_proxy(
    scripted_llm: ScriptedLLM,
    monkeypatch: pytest.MonkeyPatch,
    overrides: dict[str, object],
    proxy: str | None,
    kind: type,
) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    if proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy)
    client = _client(scripted_llm, **overrides)

    async def transport() -> object:
        made = client._runtime()[0]
        await client.aclose()
        return made

    assert type(asyncio.run(transport())) is kind


def test_batches_answered_from_the_cache_widen_the_window_and_a_call_narrows_it() -> None:
    from types import SimpleNamespace

    from jobs.runner import window_after

    def result(cached: bool) -> SimpleNamespace:
        return SimpleNamespace(cached=cached)

    assert window_after([result(True), result(True)], 3, 16) == 64  # 1,024 items
    assert window_after([result(True), result(False)], 3, 16) == 3
    assert window_after([], 3, 16) == 3


def test_a_cached_re_run_looks_its_keys_up_in_few_queries(
    llm_env: ScriptedLLM, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs.runner import run_evaluator

    monkeypatch.setenv("WORKBENCH_LLM_CONCURRENCY", "4")
    llm_env.handler = lambda req: Reply(content=json.dumps(INTENT_RESOLUTION_REPLY))
    store.create_project("ir", "intent_resolution")
    rows = [
        {"item_id": f"q{i}", "fields": {"query": f"q {i}", "response": "r"}} for i in range(400)
    ]
    store.upsert_items("ir", rows)
    first = run_evaluator(store, "ir", "intent_resolution", batch_size=4)
    assert (first.done, first.cached, llm_env.calls) == (400, 0, 400)
    queries: list[int] = []
    real = store.cache_get_many

    def counted(keys: list[str]) -> dict:
        queries.append(len(keys))
        return real(keys)

    monkeypatch.setattr(store, "cache_get_many", counted)
    again = run_evaluator(store, "ir", "intent_resolution", batch_size=4)
    assert (again.done, again.cached, llm_env.calls) == (400, 400, 400)
    assert sum(queries) == 401  # the 400 replies and the endpoint's structured-output mode
    # two batches of 4 in flight would take about 50 lookups; the widened window, a few
    assert len(queries) <= 10, queries
