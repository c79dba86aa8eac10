"""Choosing an NLI backend from settings: transformers, llm, or auto.

``auto`` takes the local model when one is configured (setting ``model`` or
``WORKBENCH_NLI_MODEL``), else the LLM endpoint when one is configured, else the
evaluator is unavailable with a one-line reason.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from common.evaluator_labels import nli_backend_label
from evaluators.base import EvalContext, EvaluatorSettings, NotConfiguredError
from evaluators.local_models import missing_local
from evaluators.nli.base import NLIBackend

NO_MODEL = (
    "no local NLI model: set WORKBENCH_NLI_MODEL (or the setting 'model') to a "
    "sequence-classification NLI model directory such as roberta-large-mnli"
)
NO_BACKEND = (
    "no NLI backend: set WORKBENCH_NLI_MODEL to a local NLI model directory "
    "(e.g. roberta-large-mnli), or configure an LLM endpoint (WORKBENCH_LLM_MODEL "
    "and WORKBENCH_LLM_BASE_URL)"
)


class NLISettings(EvaluatorSettings):
    """NLI backend choice shared by the NLI evaluators."""

    backend: Literal["auto", "transformers", "llm"] = "auto"
    model: str | None = None  # local model directory or name for the transformers backend
    max_length: int = 256
    # bfloat16: autocast matrix products on CPU. About 2.5x faster on CPUs with native
    # bf16 (AVX512-BF16 / AMX), slower on others; probabilities move in the 3rd decimal.
    precision: Literal["float32", "bfloat16"] = "float32"


def configured_model(settings: NLISettings) -> str | None:
    """The local model named by the setting or ``WORKBENCH_NLI_MODEL``."""
    return settings.model or os.environ.get("WORKBENCH_NLI_MODEL") or None


def chosen_backend(settings: NLISettings, ctx: EvalContext) -> str | None:
    """ "transformers", "llm", or None when nothing usable is configured."""
    if settings.backend == "transformers":
        return "transformers" if configured_model(settings) else None
    if settings.backend == "llm":
        return "llm" if ctx.llm is not None else None
    if configured_model(settings):
        return "transformers"
    return "llm" if ctx.llm is not None else None


def nli_unavailable_reason(settings: NLISettings, ctx: EvalContext) -> str | None:
    """None when the chosen backend can run, else one line saying what to configure."""
    chosen = chosen_backend(settings, ctx)
    if chosen == "transformers":
        return missing_local("torch", "transformers")
    if chosen is not None:
        return None
    if settings.backend == "transformers":
        return NO_MODEL
    if settings.backend == "llm":
        from evaluators.llm.config import not_configured_message

        return "NLI via LLM: " + not_configured_message()
    return NO_BACKEND


def backend_model_name(settings: NLISettings, ctx: EvalContext) -> str | None:
    """Model name for the signature, without loading anything."""
    which = chosen_backend(settings, ctx)
    if which == "transformers":
        from pathlib import Path

        model = configured_model(settings) or ""
        return "transformers:" + (Path(model).name if Path(model).is_dir() else model)
    if which == "llm":
        return f"llm:{getattr(ctx.llm, 'model', 'unknown')}"
    return None


def backend_label(settings: NLISettings, ctx: EvalContext) -> str | None:
    """The backend that runs, for people: ``LLM-NLI: gpt-4o`` or ``NLI model: ...``."""
    return nli_backend_label(backend_model_name(settings, ctx))


def build_backend(settings: NLISettings, ctx: EvalContext, **options: Any) -> NLIBackend:
    """The backend the settings select; raises NotConfiguredError when none can run."""
    which = chosen_backend(settings, ctx)
    if which == "transformers":
        from evaluators.nli.transformers_backend import TransformersNLI

        return TransformersNLI(
            configured_model(settings) or "",
            max_length=settings.max_length,
            precision=settings.precision,
            **options,
        )
    if which == "llm":
        from evaluators.nli.llm_backend import LLMNLI

        return LLMNLI(ctx.llm)
    raise NotConfiguredError(nli_unavailable_reason(settings, ctx) or NO_BACKEND)
