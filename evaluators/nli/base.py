"""The NLI backend interface: batches of (premise, hypothesis) in, three probabilities out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

LABELS = ("entailment", "neutral", "contradiction")


@dataclass(frozen=True)
class NLIProbs:
    """Probabilities of the three NLI classes (they sum to 1)."""

    entailment: float
    neutral: float
    contradiction: float

    @property
    def label(self) -> str:
        """The most probable class; ties go to the later class (no entailment on a tie)."""
        values = {
            "entailment": self.entailment,
            "neutral": self.neutral,
            "contradiction": self.contradiction,
        }
        best = max(values.values())
        return [name for name in LABELS if values[name] == best][-1]

    @property
    def entails(self) -> bool:
        """True when entailment has the highest probability (the SGSAcc rule)."""
        return self.label == "entailment"

    def as_dict(self) -> dict[str, float]:
        """JSON-ready form for result details."""
        return {
            "entailment": self.entailment,
            "neutral": self.neutral,
            "contradiction": self.contradiction,
        }


@dataclass(frozen=True)
class NLIPrediction:
    """One pair's outcome: probabilities, or the error that prevented them."""

    probs: NLIProbs | None
    error: str | None = None
    raw: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    cached: bool = False


class NLIBackend(ABC):
    """Predicts entailment / neutral / contradiction for batches of pairs."""

    #: Short backend id stored in signatures ("transformers", "llm").
    kind: str = ""

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The model behind the predictions, for signatures."""

    @abstractmethod
    async def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIPrediction]:
        """One prediction per (premise, hypothesis) pair, in order."""

    async def predict_unique(self, pairs: Sequence[tuple[str, str]]) -> list[NLIPrediction]:
        """Like ``predict`` but asks the model once per distinct pair."""
        unique = list(dict.fromkeys(pairs))
        outcome = dict(zip(unique, await self.predict(unique), strict=True))
        return [outcome[p] for p in pairs]
