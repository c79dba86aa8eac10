"""The cheaper per-item path of an LLM run gives the same keys, values and rows."""

from __future__ import annotations

import gc
import hashlib
import json
import random
import re

import pytest

from annotation_store import Store
from common.redact import MASK, DataRedactor, redact_data
from evaluators.builtin.intent_resolution import IntentRecord
from evaluators.llm.cache import MemoryCache, cache_key, cache_key_with, canonical_json
from evaluators.llm.jsonparse import extract_json
from evaluators.llm.prompts import PROMPT_DIR, PromptTemplate, load_prompt
from jobs.runner import run_evaluator
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply, ScriptedLLM


def test_a_key_with_a_pre_serialised_schema_is_the_plain_key() -> None:
    schema = IntentRecord.model_json_schema()
    record = {
        "model": "m",
        "messages": [{"role": "user", "content": 'a "quoted" é, \\u0000 and a brace {'}],
        "response_format": {"json_schema": schema},
        "temperature": 0.0,
        "cache_salt": "run:1",
    }
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()  # the stored keys' form
    assert cache_key(record) == expected
    path = ("response_format", "json_schema")
    assert cache_key_with(record, path, canonical_json(schema)) == expected


def test_the_strict_fast_path_reads_what_the_repairs_would() -> None:
    assert extract_json('  {"a": [1, 2], "b": "x"}\n') == {"a": [1, 2], "b": "x"}
    assert extract_json('{"a": 1,}') == {"a": 1}  # not strict JSON: repaired as before
    assert extract_json('{"a": 1} and then prose') == {"a": 1}
    assert extract_json('```json\n{"a": 2}\n```') == {"a": 2}


def test_cache_get_many_answers_only_stored_keys(any_store: Store) -> None:
    store = any_store
    store.cache_put_many([("k1", "m", {"q": 1}, {"texts": ["a"]}), ("k2", "m", {}, {"x": 2})])
    assert store.cache_get_many(["k2", "nope", "k1"]) == {
        "k1": {"texts": ["a"]},
        "k2": {"x": 2},
    }
    many = [f"k{i}" for i in range(1200)]  # more than one chunk of the IN list
    assert set(store.cache_get_many(many)) == {"k1", "k2"}
    memory = MemoryCache()
    memory.cache_put("a", "m", {}, {"v": 1})
    assert memory.cache_get_many(["a", "b"]) == {"a": {"v": 1}}


def test_bulk_save_inserts_then_updates_one_row_per_item_and_sums_the_run(
    any_store: Store,
) -> None:
    store = any_store
    from evaluators.base import EvalResult, Signature

    store.create_project("p", "intent_resolution")
    store.upsert_items(
        "p", [{"item_id": f"i{n}", "fields": {"query": "q", "response": "r"}} for n in range(3)]
    )
    sig = Signature("intent_resolution", "2", "m", "h", {})
    run_id = store.create_run("p", sig)

    def result(item: str, score: float) -> EvalResult:
        return EvalResult(item, sig, scores={"resolution": score}, tokens_in=10, tokens_out=2)

    store.save_results("p", run_id, [result("i0", 0.2), result("i1", 0.4)])
    store.save_results("p", run_id, [result("i1", 0.6), result("i2", 0.8)])  # i1 again
    rows = store.run_results(run_id)
    assert [(r.item_id, r.scores["resolution"]) for r in rows] == [
        ("i0", 0.2),
        ("i1", 0.6),
        ("i2", 0.8),
    ]
    run = next(r for r in store.runs("p") if r.id == run_id)
    assert (run.tokens_in, run.tokens_out) == (40, 8)


def _reference_render(template: PromptTemplate, values: dict[str, str]) -> list[dict[str, str]]:
    """The rendering as it was: fill the whole text, then split it into sections."""
    placeholder = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
    section = re.compile(r"^\[(system|user)\]\s*$", re.M)
    filled = placeholder.sub(lambda m: str(values[m.group(1)]), template.text)
    parts = section.split(filled)
    messages = [
        {"role": role, "content": body.strip()}
        for role, body in zip(parts[1::2], parts[2::2], strict=True)
        if body.strip()
    ]
    return messages or [{"role": "user", "content": filled.strip()}]


@pytest.mark.parametrize("pieces", [("a", " ", "\n", "é", "{", "}}", "user"), ("[user]", "\n")])
def test_prompts_render_as_the_whole_text_rendering_did(pieces: tuple[str, ...]) -> None:
    rnd = random.Random(7)
    templates = [load_prompt(p.stem) for p in sorted(PROMPT_DIR.glob("*.md"))]
    templates.append(PromptTemplate("t", "[system]\nS {{a}}\n\n[user]\n{{b}}\n{{a}} end", "x"))
    templates.append(PromptTemplate("no-sections", "  just {{a}} and {{b}}  ", "x"))
    templates.append(PromptTemplate("empty", "[system]\n{{a}}\n[user]\n{{b}}", "x"))
    templates.append(PromptTemplate("bracket", "[system]\nS\n[{{a}}]\n{{b}}", "x"))
    for template in templates:
        for _ in range(300):
            values = {
                name: "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 8)))
                for name in template.placeholders
            }
            assert template.render(values) == _reference_render(template, values), values


def test_a_value_holding_a_section_line_renders_as_before() -> None:
    template = PromptTemplate("t", "[system]\nS\n[user]\nQ: {{q}}", "x")
    assert template.render({"q": "hi\n[system]\nsneaky"}) == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Q: hi"},
        {"role": "system", "content": "sneaky"},
    ]
    with pytest.raises(KeyError, match="needs"):
        template.render({})


def test_the_bulk_redactor_masks_what_redact_data_masks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", "plain-secret-123")
    clean = [{"a": ["x", {"b": "y"}]}, "text", 3, None]
    redactor = DataRedactor()
    assert redactor.many(clean) is clean  # nothing to mask: no copy made
    dirty = [
        {"a": ["x", {"b": "key plain-secret-123"}]},
        "Bearer abc.def",
        ("tuple", "SK-abcdefgh"),
        7,
    ]
    assert redactor.many(dirty) == [redact_data(v) for v in dirty]
    assert redactor.many(dirty)[0] == {"a": ["x", {"b": f"key {MASK}"}]}
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", 'quo"ted-secret')  # escaped in JSON text
    assert DataRedactor().many(['a quo"ted-secret']) == [f"a {MASK}"]
    assert DataRedactor(["extra-secret"]).many(["an extra-secret"]) == [f"an {MASK}"]


def test_an_llm_run_leaves_the_collector_as_it_found_it(llm_env: ScriptedLLM, store: Store) -> None:
    llm_env.handler = lambda req: Reply(content=json.dumps(INTENT_RESOLUTION_REPLY))
    store.create_project("p", "intent_resolution")
    store.upsert_items(
        "p", [{"item_id": f"i{n}", "fields": {"query": "q", "response": "r"}} for n in range(3)]
    )
    frozen: list[int] = []
    progress = run_evaluator(
        store,
        "p",
        "intent_resolution",
        on_progress=lambda p: frozen.append(gc.get_freeze_count()),
    )
    assert progress.done == 3 and progress.failed == 0
    assert frozen and all(n > 0 for n in frozen)  # older objects frozen during the run
    assert gc.get_freeze_count() == 0


def test_a_run_on_a_background_thread_leaves_the_collector_alone(
    llm_env: ScriptedLLM, store: Store
) -> None:
    """In the app a job runs on a worker thread beside the sessions: no process-wide freeze."""
    import threading

    llm_env.handler = lambda req: Reply(content=json.dumps(INTENT_RESOLUTION_REPLY))
    store.create_project("p", "intent_resolution")
    store.upsert_items(
        "p", [{"item_id": f"i{n}", "fields": {"query": "q", "response": "r"}} for n in range(3)]
    )
    frozen: list[int] = []
    done: list[int] = []

    def job() -> None:
        progress = run_evaluator(
            store,
            "p",
            "intent_resolution",
            on_progress=lambda p: frozen.append(gc.get_freeze_count()),
        )
        done.append(progress.done)

    worker = threading.Thread(target=job)
    worker.start()
    worker.join(timeout=60)
    assert done == [3] and frozen and all(n == 0 for n in frozen)
