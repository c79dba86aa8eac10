"""Base class of evaluators that judge with an NLI backend (chosen by their settings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, TypeVar

from evaluators.base import EvalResult, Evaluator, Signature, count_of
from evaluators.nli.base import NLIBackend
from evaluators.nli.llm_backend import prompt_hash as llm_prompt_hash
from evaluators.nli.select import (
    NLISettings,
    backend_label,
    backend_model_name,
    build_backend,
    chosen_backend,
    nli_unavailable_reason,
)

NLISettingsT = TypeVar("NLISettingsT", bound=NLISettings)


class NLIEvaluator(Evaluator[NLISettingsT]):
    """Availability, model name, prompt hash and the backend, from ``NLISettings``."""

    @property
    def nli_settings(self) -> NLISettings:
        """The NLI part of the settings (every subclass's Settings extends NLISettings)."""
        return self.settings

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """The NLI backend that ran (``auto`` may have picked the LLM endpoint)."""
        ran = [r.details.get("nli_backend") or "unknown" for r in results if r.status == "ok"]
        return [f"NLI backend: {count_of(ran)}"]

    def unavailable_reason(self) -> str | None:
        return nli_unavailable_reason(self.nli_settings, self.ctx)

    def model_name(self) -> str | None:
        return backend_model_name(self.nli_settings, self.ctx)

    def prompt_hash(self) -> str | None:
        return llm_prompt_hash() if chosen_backend(self.nli_settings, self.ctx) == "llm" else None

    def signature(self) -> Signature:
        """The base signature with the backend that runs in its settings (``auto`` can
        pick either, and the two give different figures)."""
        sig = super().signature()
        which = chosen_backend(self.nli_settings, self.ctx)
        return Signature(
            sig.evaluator,
            sig.version,
            sig.model,
            sig.prompt_hash,
            {**sig.settings, "backend_used": which},
        )

    def stamp_backend(self, results: Sequence[EvalResult]) -> list[EvalResult]:
        """Every result names the backend that produced it (``details["nli_backend"]``)."""
        label = backend_label(self.nli_settings, self.ctx)
        for res in results:
            res.details["nli_backend"] = label
        return list(results)

    @cached_property
    def backend(self) -> NLIBackend:
        """The NLI backend, built once per evaluator instance."""
        return build_backend(self.nli_settings, self.ctx)
