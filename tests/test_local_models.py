"""The local models are an optional install: evaluators that need them say so in one line."""

from __future__ import annotations

import importlib.util

import pytest

from evaluators import local_models
from evaluators.registry import create_evaluator


@pytest.fixture
def without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name in ("torch", "transformers") else real(name, *args)

    monkeypatch.setattr(local_models, "find_spec", find_spec)


def test_missing_local_names_what_is_missing_and_the_command(without_torch) -> None:
    reason = local_models.missing_local("torch", "json")
    assert reason == (
        "needs torch, not installed: install the local models: make local "
        "(or pip install 'metric-audit-workbench[local]')"
    )
    assert local_models.missing_local("json") is None


def test_embedding_evaluator_without_torch(without_torch) -> None:
    reason = create_evaluator("embedding_cosine").unavailable_reason()
    assert reason is not None and reason.startswith("needs torch, not installed")
    assert "make local" in reason and "\n" not in reason


def test_nli_transformers_backend_without_torch(without_torch, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("WORKBENCH_NLI_MODEL", str(tmp_path))
    reason = create_evaluator("nli_bidirectional").unavailable_reason()
    assert reason is not None and reason.startswith("needs torch, transformers, not installed")
