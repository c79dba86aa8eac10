"""Character n-gram overlap: Dice coefficient of the two texts' n-gram multisets.

Registered with the workbench through the ``metric_audit.evaluators`` entry point; it
compares the same two texts as the built-in lexical baselines (see ``evaluators.pairs``).
It imports the workbench by its installed name, ``metric_audit_workbench.evaluators``;
a clone answers to that name too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from metric_audit_workbench.evaluators.pairs import PairEvaluator, PairSettings
from metric_audit_workbench.evaluators.registry import register_evaluator
from pydantic import Field


class CharNgramSettings(PairSettings):
    """Length of the character n-grams."""

    n: int = Field(3, ge=1, le=10)


def char_ngrams(text: str, n: int) -> Counter[str]:
    """The multiset of character n-grams of ``text`` (lower-cased, spaces collapsed)."""
    norm = " ".join(text.lower().split())
    if len(norm) < n:
        return Counter([norm]) if norm else Counter()
    return Counter(norm[i : i + n] for i in range(len(norm) - n + 1))


def dice(a: str, b: str, n: int) -> float:
    """2 |A ∩ B| / (|A| + |B|) over n-gram multisets; 0 when both are empty."""
    ga, gb = char_ngrams(a, n), char_ngrams(b, n)
    total = sum(ga.values()) + sum(gb.values())
    return 2 * sum((ga & gb).values()) / total if total else 0.0


@register_evaluator
class CharNgramOverlap(PairEvaluator):
    """Dice overlap of character n-grams (a plugin example)."""

    name = "char_ngram"
    version = "1"
    title = "Character n-gram overlap (plugin)"
    description = "Dice coefficient of character n-grams of prediction and reference, 0-1."
    Settings = CharNgramSettings
    symmetric = True

    def score_pairs(self, hypotheses: Sequence[str], references: Sequence[str]) -> list[float]:
        n = self.settings.n  # type: ignore[attr-defined]
        return [dice(h, r, n) for h, r in zip(hypotheses, references, strict=True)]
