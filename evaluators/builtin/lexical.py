"""Lexical baselines through the libraries themselves: sacrebleu, rouge-score, nltk.

Each evaluator scores a prediction against a reference (see :mod:`pairs` for which item
fields) at sentence level. BLEU and chrF keep sacrebleu's 0-100 scale and put
sacrebleu's own signature in the model name; ROUGE and METEOR are 0-1.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any, ClassVar, Literal

import sacrebleu

from evaluators.pairs import PairEvaluator, PairSettings, PairSettingsT
from evaluators.registry import register_evaluator
from evaluators.wordnet import load_wordnet, wordnet_unavailable_reason

HUNDRED = {"match": (0.0, 100.0), "label": (0.0, 100.0)}


class SacrebleuEvaluator(PairEvaluator[PairSettingsT]):
    """Shared by BLEU and chrF: sentence scores and sacrebleu's own signature."""

    metric: Any  # a sacrebleu metric, built from the settings by the subclass

    def model_name(self) -> str:
        # sacrebleu's signature is only complete once it has scored something.
        self.metric.sentence_score("a", ["a"])
        return f"sacrebleu:{self.metric.get_signature().format(short=True)}"

    def score_pairs(self, hypotheses: Sequence[str], references: Sequence[str]) -> list[float]:
        return [
            self.metric.sentence_score(h, [r]).score
            for h, r in zip(hypotheses, references, strict=True)
        ]


class BleuSettings(PairSettings):
    """sacrebleu BLEU options (sentence level, effective order on)."""

    tokenize: str = "13a"
    smooth_method: Literal["exp", "floor", "add-k", "none"] = "exp"
    lowercase: bool = False


@register_evaluator
class BleuEvaluator(SacrebleuEvaluator[BleuSettings]):
    """Sentence BLEU (sacrebleu)."""

    name = "bleu"
    version = "1"
    title = "BLEU"
    description = "Sentence-level BLEU (sacrebleu, 0-100) of the prediction against the reference."
    scales = HUNDRED
    Settings = BleuSettings

    @cached_property
    def metric(self) -> sacrebleu.BLEU:
        s = self.settings
        return sacrebleu.BLEU(
            tokenize=s.tokenize,
            smooth_method=s.smooth_method,
            lowercase=s.lowercase,
            effective_order=True,
        )


class ChrfSettings(PairSettings):
    """sacrebleu chrF options (defaults are chrF: character 6-grams, beta 2)."""

    char_order: int = 6
    word_order: int = 0
    beta: int = 2
    eps_smoothing: bool = False


@register_evaluator
class ChrfEvaluator(SacrebleuEvaluator[ChrfSettings]):
    """Sentence chrF (sacrebleu)."""

    name = "chrf"
    version = "1"
    title = "chrF"
    description = "Sentence-level chrF (sacrebleu, 0-100) of the prediction against the reference."
    scales = HUNDRED
    Settings = ChrfSettings

    @cached_property
    def metric(self) -> sacrebleu.CHRF:
        s = self.settings
        return sacrebleu.CHRF(
            char_order=s.char_order,
            word_order=s.word_order,
            beta=s.beta,
            eps_smoothing=s.eps_smoothing,
        )


class RougeSettings(PairSettings):
    """rouge-score options."""

    use_stemmer: bool = True


class _RougeEvaluator(PairEvaluator[RougeSettings]):
    """ROUGE F-measure (rouge-score); F is symmetric, so one direction suffices."""

    rouge_type: ClassVar[str]
    Settings = RougeSettings
    symmetric = True

    @cached_property
    def scorer(self):
        from rouge_score import rouge_scorer

        return rouge_scorer.RougeScorer([self.rouge_type], use_stemmer=self.settings.use_stemmer)

    def model_name(self) -> str:
        from importlib.metadata import version

        return f"rouge-score:{version('rouge-score')}"

    def score_pairs(self, hypotheses: Sequence[str], references: Sequence[str]) -> list[float]:
        # rouge-score takes (target, prediction).
        return [
            self.scorer.score(r, h)[self.rouge_type].fmeasure
            for h, r in zip(hypotheses, references, strict=True)
        ]


def _rouge(rouge_type: str, title: str) -> type[_RougeEvaluator]:
    cls: type[_RougeEvaluator] = type(
        f"{rouge_type.capitalize()}Evaluator",
        (_RougeEvaluator,),
        {
            "name": rouge_type,
            "version": "1",
            "rouge_type": rouge_type,
            "title": title,
            "description": f"{title} F-measure (rouge-score, Porter stemmer) of the prediction "
            "against the reference.",
            "__doc__": f"{title} F-measure (rouge-score).",
        },
    )
    return register_evaluator(cls)


Rouge1Evaluator = _rouge("rouge1", "ROUGE-1")
Rouge2Evaluator = _rouge("rouge2", "ROUGE-2")
RougeLEvaluator = _rouge("rougeL", "ROUGE-L")


@register_evaluator
class MeteorEvaluator(PairEvaluator[PairSettings]):
    """METEOR (nltk) with WordNet synonyms; whitespace tokens, nltk's default parameters."""

    name = "meteor"
    version = "1"
    title = "METEOR"
    description = (
        "METEOR (nltk, WordNet 3.0 synonyms) of the prediction against the "
        "reference. Needs WordNet: scripts/install_wordnet.sh."
    )

    def unavailable_reason(self) -> str | None:
        return wordnet_unavailable_reason()

    def model_name(self) -> str:
        import nltk

        return f"nltk:{nltk.__version__}+wordnet-3.0"

    def score_pairs(self, hypotheses: Sequence[str], references: Sequence[str]) -> list[float]:
        from nltk.translate.meteor_score import meteor_score

        wordnet = load_wordnet()
        return [
            meteor_score([r.split()], h.split(), wordnet=wordnet)
            for h, r in zip(hypotheses, references, strict=True)
        ]
