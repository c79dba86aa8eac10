"""Base class of evaluators that judge with an NLI backend (chosen by their settings)."""

from __future__ import annotations

from functools import cached_property

from evaluators.base import Evaluator
from evaluators.nli.base import NLIBackend
from evaluators.nli.llm_backend import prompt_hash as llm_prompt_hash
from evaluators.nli.select import (
    NLISettings,
    backend_model_name,
    build_backend,
    chosen_backend,
    nli_unavailable_reason,
)


class NLIEvaluator(Evaluator):
    """Availability, model name, prompt hash and the backend, from ``NLISettings``."""

    @property
    def nli_settings(self) -> NLISettings:
        """The settings, typed (every subclass's Settings extends NLISettings)."""
        assert isinstance(self.settings, NLISettings)
        return self.settings

    def unavailable_reason(self) -> str | None:
        return nli_unavailable_reason(self.nli_settings, self.ctx)

    def model_name(self) -> str | None:
        return backend_model_name(self.nli_settings, self.ctx)

    def prompt_hash(self) -> str | None:
        return llm_prompt_hash() if chosen_backend(self.nli_settings, self.ctx) == "llm" else None

    @cached_property
    def backend(self) -> NLIBackend:
        """The NLI backend, built once per evaluator instance."""
        return build_backend(self.nli_settings, self.ctx)
