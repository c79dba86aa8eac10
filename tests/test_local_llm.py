"""Every LLM judge against a real model: SmolLM2-135M-Instruct on llama.cpp's server.

The server (``python -m llama_cpp.server``, llama-cpp-python built by ``make install-llm``)
is started once for the module on a free port, behind a recording proxy that keeps every
request and reply. Each built-in LLM evaluator and a custom judge of each output type
runs on a few demo items; every item must end as a score in its field's range or as a
failure with its reason, never a crash. A 135M model judges badly: these tests check the
wiring (negotiation, retries, cache, signature, token counts, sampling), not the grades.

Skipped, with the reason, where llama-cpp-python or the model is not installed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from annotation_store import Store
from demo.loading import load_demo
from evaluators.base import EvalResult
from evaluators.llm.local import LocalServer, free_port, make_spec, missing_reason, served_models
from jobs.runner import build_context, run_evaluator
from kinds import get_kind
from tests.support.recording_proxy import Exchange, RecordingProxy

REASON = missing_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=str(REASON))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """The real server, started once (its log in the module's temporary folder)."""
    spec = make_spec(port=free_port())
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("wb")
    with log, LocalServer(spec, log=log) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(server: LocalServer) -> Iterator[RecordingProxy]:
    with RecordingProxy(server.spec.base_url) as recording:
        yield recording


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The demo projects in one store for the module (its LLM cache shared by the tests),
    with a stored page for every link of the actionability items: the URL Content
    Retriever reads them instead of the web (no network here)."""
    from evaluators.ucr import extract_urls
    from evaluators.ucr.fetch import new_record

    path = tmp_path_factory.mktemp("db") / "local_llm.db"
    store = Store(f"sqlite:///{path}")
    load_demo(store)
    for item in store.items("demo-actionability"):
        for url in extract_urls(str(item.fields.get("explanation") or "")):
            page = f"A page about {url.rsplit('/', 1)[-1]}. It states facts on the claim."
            record = {**new_record(url), "status": 200, "final_url": url, "text": page}
            store.page_put(url, {**record, "content_type": "text/html"})
    yield store
    store.close()


@pytest.fixture(autouse=True)
def real_env(
    monkeypatch: pytest.MonkeyPatch, proxy: RecordingProxy, server: LocalServer
) -> RecordingProxy:
    """The workbench's LLM settings pointing at the proxy in front of the real server."""
    for name, value in {
        "WORKBENCH_LLM_BASE_URL": proxy.base_url,
        "WORKBENCH_LLM_MODEL": server.spec.alias,
        "WORKBENCH_LLM_API_KEY": "sk-local-no-key",
        "WORKBENCH_LLM_CONCURRENCY": "2",
        "WORKBENCH_LLM_TIMEOUT": "180",
        "WORKBENCH_LLM_MAX_RETRIES": "2",
        "WORKBENCH_LLM_BACKOFF": "0.2",
    }.items():
        monkeypatch.setenv(name, value)
    return proxy


def _run(
    store: Store, project: str, evaluator: str, limit: int, settings: dict[str, Any] | None = None
) -> tuple[list[EvalResult], Any]:
    """Run ``evaluator`` once on the first ``limit`` items; its results and its client."""
    ctx = build_context(store)
    progress = run_evaluator(
        store, project, evaluator, runs=1, limit=limit, settings=settings, ctx=ctx
    )
    [run_id] = progress.run_ids
    return store.run_results(run_id), ctx.llm


def _in_range(kind_name: str, field: str, value: Any) -> bool:
    """A finite number inside the field's declared range (derived scores: finite)."""
    if not isinstance(value, int | float) or not math.isfinite(value):
        return False
    fields = {f.name: f for f in get_kind(kind_name).human_fields()}
    spec = fields.get(field)
    if spec is None:
        return True
    numbers = [v for v in spec.values if isinstance(v, int | float)]
    low = spec.minimum if spec.minimum is not None else min(numbers, default=-math.inf)
    high = spec.maximum if spec.maximum is not None else max(numbers, default=math.inf)
    return low <= value <= high


def _check_items(results: list[EvalResult], kind: str, limit: int, model: str) -> None:
    """Every item ends as a score in range or a failure with its reason."""
    assert len(results) == limit
    for res in results:
        assert res.signature.model == model  # the name the server reports
        if res.status == "ok":
            assert res.scores and all(
                v is None or _in_range(kind, f, v) for f, v in res.scores.items()
            ), res.scores
            # what the server reported (an identical request of an earlier test is cached)
            assert res.cached or (res.tokens_in > 0 and res.tokens_out > 0)
        else:
            assert res.status == "failed" and res.error and not res.scores


def _usage(exchanges: list[Exchange]) -> tuple[int, int]:
    ok = [e.reply.get("usage", {}) for e in exchanges if e.status == 200]
    return sum(u.get("prompt_tokens", 0) for u in ok), sum(
        u.get("completion_tokens", 0) for u in ok
    )


def test_the_server_reports_the_model_the_signature_names(
    server: LocalServer, proxy: RecordingProxy
) -> None:
    assert served_models(proxy.base_url) == [server.spec.alias] == ["SmolLM2-135M-Instruct"]


BUILTIN = [
    # evaluator, demo project (its kind), items, settings that bound the run's time (a
    # reply cut at max_tokens is a recorded failure with its reason, which is checked too)
    ("intent_resolution", "demo-intent-resolution", 2, {"max_tokens": 200}),
    ("prometheus", "demo-intent-resolution", 1, {"max_tokens": 200, "max_reasks": 0}),
    ("geval", "demo-actionability", 1, {}),
    ("bifact", "demo-intent-match", 1, {"max_tokens": 150}),
    ("fingract", "demo-actionability", 1, {"max_tokens": 200}),
    # with the URL Content Retriever, on the stored pages (cut to their leading sentences)
    ("fingract_ucr", "demo-actionability", 1, {"max_tokens": 200, "condense": "leading"}),
    ("geval_ucr", "demo-actionability", 1, {"condense": "leading"}),
    (
        "prometheus_ucr",
        "demo-actionability",
        1,
        {"max_tokens": 200, "max_reasks": 0, "condense": "leading"},
    ),
]


@pytest.mark.parametrize(("evaluator", "project", "limit", "settings"), BUILTIN)
def test_builtin_judges_score_or_fail_with_a_reason_and_rerun_from_the_cache(
    demo: Store,
    proxy: RecordingProxy,
    server: LocalServer,
    evaluator: str,
    project: str,
    limit: int,
    settings: dict[str, Any],
) -> None:
    before = len(proxy.calls())
    results, client = _run(demo, project, evaluator, limit, settings)
    made = proxy.calls()[before:]
    _check_items(results, demo.project(project).kind, limit, server.spec.alias)
    # token counts: what the server reported for the calls of this run, item by item summed
    assert _usage(made) == (
        sum(r.tokens_in for r in results),
        sum(r.tokens_out for r in results),
    )
    # no refusal sent twice and no retry on a healthy server: every request answered once
    assert all(e.status == 200 for e in made), [e.reply for e in made if e.status != 200]
    assert client.http_calls == len(made)
    if any(e.format for e in made):  # a JSON judge: the negotiated mode, never json_schema
        assert {e.format for e in made} == {"json_object"}
        assert {r.signature.settings.get("output_mode") for r in results} == {"json_object"}
        assert {r.details.get("output_mode") for r in results if r.status == "ok"} <= {
            "json_object"
        }
    # a re-run with a fresh client makes no call for what was scored: the replies and the
    # mode are cached (no probe either); a reply that could not be used was not cached, so
    # only a failed item is asked again
    exchanges = len(proxy.exchanges)
    again, client = _run(demo, project, evaluator, limit, settings)
    if all(r.status == "ok" for r in results):
        assert len(proxy.exchanges) == exchanges and client.http_calls == 0
    assert [r.status for r in again] == [r.status for r in results]
    assert str(again[0].signature) == str(results[0].signature)
    assert all(r.cached for r in again if r.status == "ok")


def test_the_probe_finds_what_the_server_takes(proxy: RecordingProxy, demo: Store) -> None:
    _run(demo, "demo-intent-resolution", "intent_resolution", 1, {"max_tokens": 300})
    formats = [e.format for e in proxy.probes()]
    assert formats[:2] == ["json_schema", "json_object"]  # asked once per store
    refusal = proxy.probes()[0]
    assert refusal.status == 500 and "json_schema" in json.dumps(refusal.reply)


def test_geval_asks_for_twenty_samples_and_gets_twenty_draws(
    proxy: RecordingProxy, demo: Store
) -> None:
    before = len(proxy.calls())
    [res], _ = _run(demo, "demo-intent-resolution", "geval", 1, {"min_usable": 0.0})
    made = proxy.calls()[before:]
    # the server answers one choice whatever n says: the client asks 19 more times
    assert made[0].request["n"] == 20 and len(made) == 20
    assert all(len(e.reply["choices"]) == 1 for e in made)
    texts = [e.reply["choices"][0]["message"]["content"] for e in made]
    assert len(res.details["samples"]) == 20 and res.details["received_samples"] == 20
    assert len(set(texts)) >= 10, texts  # temperature 1: fresh draws, not one reply copied
    usable = [t for t, v in zip(texts, res.details["samples"], strict=True) if v is not None]
    assert res.details["valid_samples"] == len(usable)


JUDGES = {
    # output type: (project, kind file or None, definition)
    "decimal": (
        "demo-intent-resolution",
        """
kind = "intent_resolution"
fields = ["resolution"]
template = "Question: {{ query }}\\nAnswer: {{ response }}\\nHow well does the answer resolve the question?"
[output]
type = "decimal"
min = 1
max = 5
[sampling]
max_tokens = 200
""",
    ),
    "integer": (
        "demo-intent-resolution",
        """
kind = "intent_resolution"
fields = ["resolution"]
template = "Question: {{ query }}\\nAnswer: {{ response }}\\nGrade how well the answer resolves it."
[output]
type = "integer"
min = 1
max = 5
explanation = false
[sampling]
max_tokens = 60
""",
    ),
    "binary": (
        "demo-intent-match",
        """
kind = "intent_match"
fields = ["match"]
template = "Gold intent: {{ gold }}\\nPredicted intent: {{ predicted }}\\nDo they match?"
[output]
type = "binary"
explanation = false
[sampling]
max_tokens = 60
""",
    ),
    "label": (
        "demo-intent-match",
        """
kind = "intent_match"
fields = ["match"]
template = "Gold intent: {{ gold }}\\nPredicted intent: {{ predicted }}\\nSame intent?"
[output]
type = "label"
labels = ["no", "yes"]
explanation = false
[sampling]
max_tokens = 60
""",
    ),
    "fact_labels": (
        "demo-intent-match",
        """
kind = "intent_match"
fields = ["gold_fact_labels"]
template = "Predicted intent: {{ predicted }}\\nFor each fact, is it implied (C) or missing (M)?"
[output]
type = "fact_labels"
facts_field = "gold_facts"
explanation = false
[sampling]
max_tokens = 100
""",
    ),
}


@pytest.mark.parametrize("output", sorted(JUDGES))
def test_own_judges_of_each_output_type(
    demo: Store, proxy: RecordingProxy, server: LocalServer, output: str
) -> None:
    from workbench_api.judges import save_judge

    project, definition = JUDGES[output]
    save_judge(demo, f"local-{output.replace('_', '-')}", definition)
    before = len(proxy.calls())
    results, _ = _run(demo, project, f"judge:local-{output.replace('_', '-')}", 1)
    made = proxy.calls()[before:]
    _check_items(results, demo.project(project).kind, 1, server.spec.alias)
    # the constrained server holds each reply to the schema: every reply it ended itself
    # (not cut at max_tokens) is strict JSON
    assert made
    for exchange in made:
        assert exchange.format == "json_object" and "schema" in exchange.request["response_format"]
        choice = exchange.reply["choices"][0]
        if choice["finish_reason"] == "stop":
            json.loads(choice["message"]["content"])


def test_pairwise_judge_in_both_orders(
    demo: Store, proxy: RecordingProxy, server: LocalServer
) -> None:
    from tests.support.kind_examples import EXAMPLES, example_project
    from workbench_api.judges import save_judge

    example_project(demo, "pairwise_preference", "pref")
    definition = (EXAMPLES / "pairwise_judge.toml").read_text()
    # the short reply (no explanation) keeps the run within the module's time budget
    definition = definition.replace("explanation = true", "explanation = false")
    definition += "\n[sampling]\nmax_tokens = 60\n"
    assert "explanation = false" in definition
    save_judge(demo, "local-pref", definition)
    plain, _ = _run(demo, "pref", "judge:local-pref", 1)
    ctx = build_context(demo)
    before_swap = len(proxy.calls())
    progress = run_evaluator(
        demo, "pref", "judge:local-pref", limit=1, settings={"probe": "swap"}, ctx=ctx
    )
    swapped = demo.run_results(progress.run_ids[0])
    kind = demo.project("pref").kind
    for results in (plain, swapped):
        _check_items(results, kind, 1, server.spec.alias)
        for res in results:
            if res.status == "ok":
                assert res.details["answer"] in ("answer_a", "answer_b", "tie")
    assert all(r.details.get("probe") == "swap" for r in swapped)
    # the swapped run still shows "Answer A" first (the texts changed places, not the
    # titles); the prompt is the first user message (re-asks follow it)
    sent = [
        next(m["content"] for m in e.request["messages"] if m["role"] == "user")
        for e in proxy.calls()[before_swap:]
    ]
    assert sent and all(t.index("Answer A:") < t.index("Answer B:") for t in sent)
