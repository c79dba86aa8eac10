"""NLI through an LLM endpoint: a three-way verdict as structured JSON.

The model answers yes / no / unknown to "does the text say so?", which small models
follow better than the words entailment / contradiction / neutral. The verdict becomes
"one-hot" probabilities: 1.0 for the chosen class, 0.0 for the others. These are not
calibrated probabilities, so anything that averages them (the bidirectional baseline)
averages votes. A reply that does not validate is an error, never a guess.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from evaluators.base import stable_hash
from evaluators.nli.base import NLIBackend, NLIPrediction, NLIProbs

SYSTEM = (
    "You check whether a statement follows from a text. Judge only by what the text "
    "says or clearly implies, not by outside knowledge."
)
USER = """Text: {premise}
Statement: {hypothesis}

According to the text, is the statement true? Answer "yes" if the text says so or clearly
implies it, "no" if the text says otherwise, "unknown" if the text does not say.
Reply as JSON: {{"answer": "yes" | "no" | "unknown"}}"""

ANSWER_TO_LABEL = {"yes": "entailment", "unknown": "neutral", "no": "contradiction"}


class NLIVerdict(BaseModel):
    """The structured reply."""

    answer: Literal["yes", "no", "unknown"] = Field(description="does the text say so?")


def messages_for(premise: str, hypothesis: str) -> list[dict[str, str]]:
    """Chat messages for one pair."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER.format(premise=premise, hypothesis=hypothesis)},
    ]


def prompt_hash() -> str:
    """Hash of the prompt templates, for signatures."""
    return stable_hash({"system": SYSTEM, "user": USER})


def one_hot(label: str) -> NLIProbs:
    """Probabilities with all mass on ``label``."""
    values = {"entailment": 0.0, "neutral": 0.0, "contradiction": 0.0}
    values[label] = 1.0
    return NLIProbs(**values)


class LLMNLI(NLIBackend):
    """Sends each pair to the configured endpoint (the client caches and limits concurrency)."""

    kind = "llm"

    def __init__(self, client: Any, *, temperature: float = 0.0) -> None:
        self.client = client
        self.temperature = temperature

    @property
    def model_name(self) -> str:
        return f"llm:{getattr(self.client, 'model', 'unknown')}"

    async def _one(self, premise: str, hypothesis: str) -> NLIPrediction:
        reply = await self.client.complete_json(
            messages_for(premise, hypothesis), NLIVerdict, temperature=self.temperature
        )
        usage = {
            "tokens_in": getattr(reply, "tokens_in", 0) or 0,
            "tokens_out": getattr(reply, "tokens_out", 0) or 0,
            "cost": getattr(reply, "cost", 0.0) or 0.0,
            "cached": bool(getattr(reply, "cached", False)),
        }
        raw = getattr(reply, "raw", None)
        value = getattr(reply, "value", None)
        if value is None:
            error = getattr(reply, "error", None) or "reply did not match the NLI schema"
            return NLIPrediction(None, error=str(error), raw=raw, **usage)
        return NLIPrediction(one_hot(ANSWER_TO_LABEL[value.answer]), raw=raw, **usage)

    async def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIPrediction]:
        return list(await asyncio.gather(*(self._one(p, h) for p, h in pairs)))
