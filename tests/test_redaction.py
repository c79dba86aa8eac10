"""The API key never lands in a table, an export or a log line (issue #16, point 9)."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import inspect, text

from annotation_store import Store
from common.redact import MASK, install_log_redaction, redact
from interop.exporting import FRAMES, frame_bytes
from jobs.runner import run_evaluator
from jobs.worker import evaluate_params, execute_job, submit_evaluate_job
from tests.support.scripted_llm import Reply, ScriptedLLM

KEY = "sk-proj-Zx9SECRETkey1234567890abcdef"


def _project(store: Store) -> None:
    store.create_project("ir", "intent_resolution")
    store.upsert_items(
        "ir",
        [{"item_id": "q1", "fields": {"query": "How do I bake a cake?", "response": "Mix."}}],
    )


def _echoing_401(llm: ScriptedLLM) -> None:
    llm.handler = lambda req: Reply(
        status=401, content=f"Incorrect API key provided: Bearer {KEY}. Check it."
    )


def _every_stored_text(store: Store) -> str:
    """Every cell of every table, as text."""
    chunks = []
    with store.engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                chunks.append(" ".join(str(v) for v in row))
    return "\n".join(chunks)


def test_redact_masks_configured_key_bearer_tokens_and_sk_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", "plain-secret-without-prefix")
    assert redact("key plain-secret-without-prefix leaked") == f"key {MASK} leaked"
    assert redact("Authorization: Bearer abc.def-123") == f"Authorization: {MASK}"
    assert redact(f"provided: {KEY}.") == f"provided: {MASK}."
    assert redact("sk-a is short, skill-based") == "sk-a is short, skill-based"
    assert redact(None) is None


def test_a_key_echoed_in_a_401_leaves_no_trace_in_tables_exports_or_logs(
    monkeypatch: pytest.MonkeyPatch,
    store: Store,
    llm_env: ScriptedLLM,
    caplog: pytest.LogCaptureFixture,
    tmp_path,
) -> None:
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", KEY)
    install_log_redaction()
    _echoing_401(llm_env)
    _project(store)
    caplog.set_level(logging.DEBUG)

    run_evaluator(store, "ir", "intent_resolution")
    job_id = submit_evaluate_job(store, "ir", evaluate_params(["intent_resolution"]))
    execute_job(store, job_id)
    logging.getLogger("workbench.test").error("reply was %s", f"Bearer {KEY}")

    assert llm_env.calls >= 2
    results = store.item_results("ir", "q1")
    assert [r["result_status"] for r in results] == ["failed", "failed"]
    errors = " ".join(str(r["error"]) for r in results)
    assert "Incorrect API key provided" in errors and MASK in errors
    stored = _every_stored_text(store)
    assert "Incorrect API key provided" in stored  # the error is kept, just not the key
    assert KEY not in stored and "SECRETkey" not in stored
    for name in FRAMES:
        for suffix in (".csv", ".jsonl"):
            assert KEY.encode() not in frame_bytes(FRAMES[name](store, "ir"), suffix)
    logged = caplog.text + "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert "reply was" in logged
    assert KEY not in logged and "SECRETkey" not in logged
