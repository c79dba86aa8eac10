"""Natural language inference backends: one interface, local model or LLM endpoint."""

from evaluators.nli.base import NLIBackend, NLIPrediction, NLIProbs
from evaluators.nli.select import NLISettings, build_backend, nli_unavailable_reason

__all__ = [
    "NLIBackend",
    "NLIPrediction",
    "NLIProbs",
    "NLISettings",
    "build_backend",
    "nli_unavailable_reason",
]
