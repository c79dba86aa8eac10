"""NLI with a local sequence-classification model through ``transformers``.

The label order comes from the model config's ``id2label``: names containing
"entail", "neutral" and "contradict" (any case) are recognised; a two-class
entailment / not-entailment model puts its second class under neutral. Generic names
(``LABEL_0`` ...) carry no meaning, so the MNLI order of roberta-large-mnli
(contradiction, neutral, entailment) is assumed unless ``label_order`` says otherwise.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluators.nli.base import LABELS, NLIBackend, NLIPrediction, NLIProbs

MNLI_ORDER = ("contradiction", "neutral", "entailment")
PRECISIONS = ("float32", "bfloat16")
_lock = threading.Lock()
_models: dict[str, tuple[Any, Any]] = {}


def label_map(id2label: dict[Any, str], label_order: Sequence[str] | None = None) -> dict[int, str]:
    """Class index -> one of entailment / neutral / contradiction."""
    if label_order:
        return {i: _canonical(name, strict=True) for i, name in enumerate(label_order)}
    mapping = {int(i): _canonical(str(name)) for i, name in id2label.items()}
    known = {v for v in mapping.values() if v}
    if "entailment" in known and len(known) == len(mapping):
        return mapping  # type: ignore[return-value]
    if len(mapping) == 3 and not known:
        return dict(enumerate(MNLI_ORDER))
    raise ValueError(f"cannot tell NLI classes from id2label {id2label}; set label_order")


def _canonical(name: str, strict: bool = False) -> str | None:
    low = name.lower().replace("-", "_")
    if low.startswith("not_entail") or low.startswith("non_entail"):
        return "neutral"
    for prefix, canonical in (
        ("entail", "entailment"),
        ("neutral", "neutral"),
        ("contradict", "contradiction"),
    ):
        if low.startswith(prefix):
            return canonical
    if strict:
        raise ValueError(f"unknown NLI label {name!r}")
    return None


def load(model: str) -> tuple[Any, Any]:
    """(tokenizer, model) for a local directory or a cached name, loaded once per process."""
    with _lock:
        if model not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            local = Path(model).is_dir()
            tok = AutoTokenizer.from_pretrained(model, local_files_only=local)
            net = AutoModelForSequenceClassification.from_pretrained(model, local_files_only=local)
            net.eval()
            _models[model] = (tok, net)
        return _models[model]


class TransformersNLI(NLIBackend):
    """A sequence-classification NLI model on CPU, scored in padded batches."""

    kind = "transformers"

    def __init__(
        self,
        model: str,
        *,
        batch_size: int = 32,
        max_length: int = 256,
        label_order: Sequence[str] | None = None,
        precision: str = "float32",
    ) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
        self.model = model
        self.precision = precision
        self.batch_size = batch_size
        self.max_length = max_length
        self.tokenizer, self.net = load(model)
        self.labels = label_map(self.net.config.id2label, label_order)

    @property
    def model_name(self) -> str:
        return Path(self.model).name if Path(self.model).is_dir() else self.model

    def predict_sync(self, pairs: Sequence[tuple[str, str]]) -> list[NLIProbs]:
        """Probabilities for each pair; pairs of similar length are batched together."""
        import torch

        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out: list[NLIProbs | None] = [None] * len(pairs)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            enc = self.tokenizer(
                [pairs[i][0] for i in chunk],
                [pairs[i][1] for i in chunk],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
            with torch.inference_mode(), self._autocast(torch):
                probs = torch.softmax(self.net(**enc).logits.float(), dim=-1).tolist()
            for i, row in zip(chunk, probs, strict=True):
                values = dict.fromkeys(LABELS, 0.0)
                for index, p in enumerate(row):
                    values[self.labels[index]] += p
                out[i] = NLIProbs(**values)
        return [p for p in out if p is not None]

    def _autocast(self, torch: Any) -> Any:
        """bfloat16 autocast on CPU when asked for; otherwise a no-op context."""
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16")

    async def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIPrediction]:
        probs = await asyncio.to_thread(self.predict_sync, list(pairs))
        return [NLIPrediction(p) for p in probs]
