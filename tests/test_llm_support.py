"""Helpers shared by the LLM evaluator tests (fixtures are imported by those modules)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from evaluators.base import EvalContext, EvalItem, EvalResult
from evaluators.llm.client import LLMClient, build_llm_client
from evaluators.registry import create_evaluator
from tests.support.scripted_llm import ScriptedLLM


def _fast_llm(llm_env: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> ScriptedLLM:
    """The scripted server with millisecond backoff, so retry tests stay fast."""
    monkeypatch.setenv("WORKBENCH_LLM_BACKOFF", "0.001")
    return llm_env


def fast_llm_fixture() -> object:
    """The ``fast_llm`` fixture, for a test module to bind under a private name."""
    return pytest.fixture(name="fast_llm")(_fast_llm)


def make_client(cache: Any = None) -> LLMClient:
    """A client for the configured (scripted) endpoint."""
    client = build_llm_client(cache=cache)
    assert client is not None
    return client


def run_items(
    name: str,
    items: Sequence[EvalItem],
    cache: Any = None,
    pages: Any = None,
    settings: dict[str, Any] | None = None,
    run_index: int = 0,
) -> list[EvalResult]:
    """Evaluate items with a registered evaluator against the configured endpoint."""
    ctx = EvalContext(llm=make_client(cache), cache=cache, pages=pages, run_index=run_index)
    evaluator = create_evaluator(name, settings, ctx)
    return asyncio.run(evaluator.evaluate(items))


def dumps(value: Any) -> str:
    """Compact JSON for scripted replies."""
    return json.dumps(value)


def last_user_message(request: dict[str, Any]) -> str:
    """The last user message of a recorded request."""
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
