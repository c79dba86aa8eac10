"""What the scripted server answers each peer in the whole-process bench, in its shape.

``bench/whole_process.py --peers`` runs deepeval's GEval and azure-ai-evaluation's
IntentResolutionEvaluator against the same scripted server as the workbench. Each parses
a different reply (read from their sources, deepeval 4.3.1 and azure-ai-evaluation
1.18.10):

- deepeval GEval (``a_generate_rubric_score``): a JSON object with ``reason`` and an
  integer ``score`` on 0-10, and, since it asks for ``logprobs``/``top_logprobs``, token
  log-probabilities whose entry for the score token it weights
  (``calculate_weighted_summed_score``);
- azure IntentResolutionEvaluator (its prompty, ``response_format: json_object``): a JSON
  object with ``reason``, a ``score`` in 1-5 and ``status`` "completed".

A request is told apart by its prompt's wording; anything else gets the workbench's
intent-resolution record.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import Reply

#: The start of deepeval GEval's "generate_evaluation_results" prompt.
DEEPEVAL_MARKER = "You are an evaluator. Given the following evaluation steps"
#: A phrase of azure-ai-evaluation's intent_resolution.prompty.
AZURE_MARKER = "Intent-Resolution-Judge"

DEEPEVAL_GEVAL_REPLY = {"reason": "ok", "score": 8}
AZURE_INTENT_RESOLUTION_REPLY = {"reason": "ok", "score": 4, "status": "completed"}


def _token(token: str, logprob: float, top: list[tuple[str, float]] | None = None) -> dict:
    entry: dict[str, Any] = {"token": token, "logprob": logprob, "bytes": None}
    entry["top_logprobs"] = [
        {"token": t, "logprob": lp, "bytes": None} for t, lp in (top or [(token, logprob)])
    ]
    return entry


#: Log-probabilities for the tokens of ``DEEPEVAL_GEVAL_REPLY``: the score token "8" with
#: "7" and "9" beside it, so GEval's weighted score is 7.78 of 10 (0.778 normalised).
DEEPEVAL_GEVAL_LOGPROBS = [
    _token('{"', 0.0),
    _token("reason", 0.0),
    _token('":"', 0.0),
    _token("ok", 0.0),
    _token('","', 0.0),
    _token("score", 0.0),
    _token('":', 0.0),
    _token("8", -0.2231, [("8", -0.2231), ("7", -1.2040), ("9", -3.0)]),
    _token("}", 0.0),
]


def prompt_text(body: dict[str, Any]) -> str:
    """The text of a chat request's messages (string contents and text parts)."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


def bench_reply(body: dict[str, Any], delay_s: float = 0.0) -> Reply:
    """The reply for one request: the peer's shape when a peer sent it, else the workbench's."""
    text = prompt_text(body)
    if DEEPEVAL_MARKER in text:
        return Reply(
            content=json.dumps(DEEPEVAL_GEVAL_REPLY),
            logprobs=DEEPEVAL_GEVAL_LOGPROBS,
            delay_s=delay_s,
        )
    if AZURE_MARKER in text:
        return Reply(content=json.dumps(AZURE_INTENT_RESOLUTION_REPLY), delay_s=delay_s)
    return Reply(content=json.dumps(INTENT_RESOLUTION_REPLY), delay_s=delay_s)
