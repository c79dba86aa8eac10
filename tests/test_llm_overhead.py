"""The cheaper per-item path of an LLM run gives the same keys, values and rows."""

from __future__ import annotations

import hashlib
import json

from annotation_store import Store
from evaluators.builtin.intent_resolution import IntentRecord
from evaluators.llm.cache import MemoryCache, cache_key, cache_key_with, canonical_json
from evaluators.llm.jsonparse import extract_json


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
