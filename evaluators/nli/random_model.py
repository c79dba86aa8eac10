"""A randomly initialised NLI classifier saved to disk, for tests and benchmarks.

It exercises the real loading, tokenising and batching code of the transformers backend
without downloading anything. Its predictions are meaningless.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ID2LABEL = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}


def build_random_nli_model(
    directory: str | Path,
    texts: Iterable[str] = (),
    *,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    intermediate: int = 64,
    seed: int = 0,
    init_range: float = 0.5,
    id2label: dict[int, str] | None = None,
) -> Path:
    """Save a BERT sequence classifier (3 labels, weights drawn with std ``init_range`` so
    different inputs give visibly different outputs) and a word-level WordPiece vocabulary
    built from ``texts`` into ``directory``; returns the directory."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + list("0123456789.,?!'")
    vocab = list(dict.fromkeys(SPECIAL + letters + ["##" + c for c in letters] + words))
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(out / "vocab.txt"), do_lower_case=True)
    labels = id2label or ID2LABEL
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=intermediate,
        max_position_embeddings=512,
        initializer_range=init_range,
        num_labels=len(labels),
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
