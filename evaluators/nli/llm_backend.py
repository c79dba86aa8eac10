"""NLI through an LLM endpoint: a three-way probability distribution as structured JSON.

The model answers "does the text say so?" with a probability for each of yes / unknown /
no (small models follow these words better than entailment / neutral / contradiction).
The three values must lie in 0..1 and sum to 1 (within 0.02; they are then normalised);
a reply that breaks this is re-asked and, failing that, an error, never a guess. So the
argmax rule (faithful when entailment is the most probable class), the choice of the
highest-entailment reference and the averaged entailment of the bidirectional baseline
keep their meaning with this backend. These are the model's stated probabilities, not
a classifier's calibrated softmax; results say which backend produced them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from evaluators.base import stable_hash
from evaluators.nli.base import NLIBackend, NLIPrediction, NLIProbs

SYSTEM = (
    "You check whether a statement follows from a text. Judge only by what the text "
    "says or clearly implies, not by outside knowledge."
)
USER = """Text: {premise}
Statement: {hypothesis}

According to the text, is the statement true? Give how likely each answer is:
"yes" if the text says so or clearly implies it, "no" if the text says otherwise,
"unknown" if the text does not say. The three numbers are probabilities from 0 to 1
and add up to 1 (for example 0.9, 0.08, 0.02 when you are fairly sure of one answer).
Reply as JSON: {{"yes": number, "unknown": number, "no": number}}"""

ANSWER_TO_LABEL = {"yes": "entailment", "unknown": "neutral", "no": "contradiction"}
SUM_TOLERANCE = 0.02


class NLIDistribution(BaseModel):
    """The structured reply: a probability for each answer."""

    yes: float = Field(ge=0.0, le=1.0, description="the text says so")
    unknown: float = Field(ge=0.0, le=1.0, description="the text does not say")
    no: float = Field(ge=0.0, le=1.0, description="the text says otherwise")

    def probs(self) -> NLIProbs:
        """The distribution normalised to sum to exactly 1."""
        total = self.yes + self.unknown + self.no
        return NLIProbs(
            entailment=self.yes / total, neutral=self.unknown / total, contradiction=self.no / total
        )


def sums_to_one(value: NLIDistribution) -> str | None:
    """Re-ask reason when the three probabilities do not add up to 1."""
    total = value.yes + value.unknown + value.no
    if abs(total - 1.0) > SUM_TOLERANCE:
        return f'"yes", "unknown" and "no" add up to {total:.3f}; they must add up to 1'
    return None


def messages_for(premise: str, hypothesis: str) -> list[dict[str, str]]:
    """Chat messages for one pair."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER.format(premise=premise, hypothesis=hypothesis)},
    ]


def prompt_hash() -> str:
    """Hash of the prompt templates, for signatures."""
    return stable_hash({"system": SYSTEM, "user": USER})


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
            messages_for(premise, hypothesis),
            NLIDistribution,
            check=sums_to_one,
            temperature=self.temperature,
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
        return NLIPrediction(value.probs(), raw=raw, **usage)

    async def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIPrediction]:
        return list(await asyncio.gather(*(self._one(p, h) for p, h in pairs)))
