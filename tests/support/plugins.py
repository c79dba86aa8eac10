"""Installed evaluator plugins as a test sees them, without installing anything."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest


def evaluator_plugins(monkeypatch: pytest.MonkeyPatch, eps: list[EntryPoint]) -> None:
    """The evaluator registry with its built-ins discovered (and kept, whatever the test
    registers) and ``eps`` as the installed evaluator plugins, not loaded yet."""
    import common.registry as registry
    from evaluators.registry import EVALUATORS

    EVALUATORS.names()  # the built-ins first: the snapshot below holds them
    monkeypatch.setattr(
        registry, "entry_points", lambda group: eps if "evaluators" in group else []
    )
    monkeypatch.setattr(EVALUATORS, "_entries", dict(EVALUATORS._entries))
    monkeypatch.setattr(EVALUATORS, "_discovered", False)
    monkeypatch.setattr(EVALUATORS, "_loads", None)
    monkeypatch.setattr(EVALUATORS, "plugin_errors", {})
