"""Declared kinds the annotation client draws for comparisons (issue #46): a pairwise
question with strength levels, and a ranking of three outputs (ties allowed or not)."""

from __future__ import annotations

from annotation_store import Store
from workbench_api.kinds import save_kind

PAIRWISE_STRENGTHS = """
title = "Which answer is better, and by how much"

[[fields]]
name = "request"
role = "text"

[[fields]]
name = "answer_a"
role = "text"
output = true

[[fields]]
name = "answer_b"
role = "text"
output = true

[[questions]]
name = "preference"
type = "pairwise"
prompt = "Which answer is better?"
outputs = ["answer_a", "answer_b"]
strength = ["slightly", "much"]
"""

RANKING = """
title = "Rank the answers"

[[fields]]
name = "request"
role = "text"

[[fields]]
name = "answer_a"
role = "text"
output = true

[[fields]]
name = "answer_b"
role = "text"
output = true

[[fields]]
name = "answer_c"
role = "text"
output = true

[[questions]]
name = "order"
type = "ranking"
prompt = "Rank the answers, best first"
outputs = ["answer_a", "answer_b", "answer_c"]
tie = TIES
"""


def items(n: int, outputs: tuple[str, ...]) -> list[dict]:
    """``n`` items: a request and a text for each output."""
    return [
        {
            "item_id": f"c{i:02d}",
            "fields": {"request": f"Request {i}", **{o: f"{o} of {i}" for o in outputs}},
        }
        for i in range(n)
    ]


def strengths_project(store: Store, name: str = "ps", n: int = 3) -> str:
    """A project of the pairwise-with-strengths kind with ``n`` items."""
    save_kind(store, name, PAIRWISE_STRENGTHS)
    store.create_project(name, f"decl:{name}", {"k": 1})
    store.upsert_items(name, items(n, ("answer_a", "answer_b")))
    return name


def ranking_project(
    store: Store, name: str = "rk", n: int = 3, ties: bool = True, k: int = 1
) -> str:
    """A project of the ranking kind (ties allowed or not) with ``n`` items, each for
    ``k`` annotators."""
    save_kind(store, name, RANKING.replace("TIES", "true" if ties else "false"))
    store.create_project(name, f"decl:{name}", {"k": k})
    store.upsert_items(name, items(n, ("answer_a", "answer_b", "answer_c")))
    return name
