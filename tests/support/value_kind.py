"""A declared kind with every question type the annotation client answers by value, a
label set, an optional question and conditional ones (issue #46's client tests)."""

from __future__ import annotations

from annotation_store import Store
from workbench_api.kinds import save_kind

KIND = """
title = "Reply check"

[[fields]]
name = "text"
role = "text"

[[questions]]
name = "has_errors"
type = "binary"
prompt = "Does the reply contain an error?"
labels = ["no", "yes"]

[[questions]]
name = "errors"
type = "spans"
prompt = "Mark each error."
field = "text"
labels = ["fact", "tone"]

[questions.show_if]
question = "has_errors"
answer = "yes"

[[questions]]
name = "quality"
type = "score"
prompt = "Overall quality, 0 to 1"
min = 0
max = 1

[[questions]]
name = "stars"
type = "score"
prompt = "Stars, 1 to 10"
min = 1
max = 10

[[questions]]
name = "topics"
type = "multi"
prompt = "Topics it covers"
labels = ["billing", "travel", "health"]

[[questions]]
name = "summary"
type = "text"
prompt = "The reply in one line"

[[questions]]
name = "comment"
type = "text"
prompt = "Anything else"
required = false
"""

TEXTS = [
    "The cat sleep on the sofa.",
    "Trains to Lyon leave every hour.",
    "Your refund was sent on Monday.",
]


def value_project(store: Store, name: str = "rc", settings: dict | None = None) -> str:
    """Declare the kind as ``name`` and create a project of it with three items."""
    save_kind(store, name, KIND)
    store.create_project(name, f"decl:{name}", settings or {"k": 1})
    store.upsert_items(
        name, [{"item_id": f"r{i}", "fields": {"text": t}} for i, t in enumerate(TEXTS)]
    )
    return name
