"""Judge replies shared by tests and benches (the JSON a scripted model answers with)."""

from __future__ import annotations

#: A valid intent-resolution judge record (``evaluators/builtin/intent_resolution``): an
#: intent found and resolved, on the score grid. Tests that assert on a value override it.
INTENT_RESOLUTION_REPLY = {
    "explanation": "ok",
    "conversation_has_intent": True,
    "agent_perceived_intent": "x",
    "actual_user_intent": "x",
    "correct_intent_detected": True,
    "intent_resolved": True,
    "resolution_score": 0.8,
}
