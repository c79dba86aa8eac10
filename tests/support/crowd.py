"""One crowd study for the app tests (AppTest and the real browser)."""

from __future__ import annotations

from typing import Any

TOKEN = "study-token"
DONE_URL = "https://app.prolific.com/submissions/complete"
STUDY: dict[str, Any] = {
    "crowd": True,
    "token": TOKEN,
    "consent": "Your answers are kept for research. Do you take part?",
    "training": [
        {"id": "t1", "fields": {"text": "Snow is white."}, "answers": {"label": 1},
         "explanation": "Fresh snow reflects all colours."},
        {"id": "t2", "fields": {"text": "Fish can fly to the moon."}, "answers": {"label": 0},
         "explanation": "No fish leaves the atmosphere."},
    ],
    "qualification": 1.0,
    "gold_rate": 0.5,
    "survey": [{"id": "clear", "text": "How clear was the task?", "type": "likert"},
               {"id": "comments", "text": "Any comments?"}],
    "completion_code": "CRWD-9",
    "completion_url": DONE_URL,
}  # fmt: skip
