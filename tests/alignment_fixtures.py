"""A small project with two versions of ``judge:toy`` for the alignment tests.

Built through the Store only (runs and results with signatures), so the tests do not
depend on how judges are defined or run.
"""

from __future__ import annotations

from typing import Any

from annotation_store import Store
from evaluators.base import EvalResult, Signature

PROJECT = "toy"
N_ITEMS = 40
PEOPLE = ("ann", "bob", "cat")
FEW_SHOT = ["i00", "i01"]


def item_ids() -> list[str]:
    """i00 .. i39."""
    return [f"i{k:02d}" for k in range(N_ITEMS)]


def human(k: int, who: int) -> int:
    """People's binary labels: the truth is k % 2; bob errs on every 5th item, cat on every 7th."""
    truth = k % 2
    if (who == 1 and k % 5 == 0) or (who == 2 and k % 7 == 0):
        return 1 - truth
    return truth


def v1_score(k: int) -> int:
    """Version 1 errs on every 3rd item."""
    return 1 - k % 2 if k % 3 == 0 else k % 2


def v2_score(k: int) -> int:
    """Version 2 errs only on every 9th item."""
    return 1 - k % 2 if k % 9 == 0 else k % 2


def add_run(
    store: Store,
    version: str,
    scores: dict[str, float | None],
    *,
    settings: dict[str, Any] | None = None,
    details: dict[str, dict[str, Any]] | None = None,
    failed: tuple[str, ...] = (),
    field: str = "label",
    project: str = PROJECT,
) -> int:
    """One run of ``judge:toy`` at ``version``: a score per item (failed items fail)."""
    sig = Signature("judge:toy", version, "toy-model", f"prompt{version}", settings or {})
    run = store.create_run(project, sig, 0)
    results = []
    for item, score in scores.items():
        if item in failed:
            results.append(EvalResult.failure(item, sig, "reply was not JSON", "oops"))
            continue
        results.append(
            EvalResult(
                item,
                sig,
                scores={field: score},
                details=(details or {}).get(item, {}),
                reasoning=f"v{version} thinks {score} for {item}",
                tokens_in=100,
                tokens_out=20 if version == "1" else 30,
                cost=0.001 if version == "1" else 0.002,
            )
        )
    store.save_results(project, run, results)
    store.finish_run(run)
    return run


def build_toy(store: Store, *, swap: bool = True) -> None:
    """The toy binary project: 40 items, 3 people, judge:toy v1 and v2 (v2 with two
    few-shot items, probabilities, samples, and a run with the texts swapped)."""
    store.create_project(PROJECT, "binary")
    store.upsert_items(
        PROJECT,
        [{"item_id": i, "fields": {"text": "x" * (5 + k)}} for k, i in enumerate(item_ids())],
    )
    store.import_labels(
        PROJECT,
        [
            {
                "item_id": i,
                "annotator": who,
                "field": "label",
                "value": human(k, w),
                "status": "submitted",
            }
            for k, i in enumerate(item_ids())
            for w, who in enumerate(PEOPLE)
        ],
    )
    add_run(store, "1", {i: v1_score(k) for k, i in enumerate(item_ids())}, failed=("i39",))
    details = {
        i: {"probability": 0.9 if v2_score(k) else 0.2, "samples": [v2_score(k)] * 3}
        for k, i in enumerate(item_ids())
    }
    details["i03"]["samples"] = [1, 0, 1]
    v2 = {"few_shot_item_ids": FEW_SHOT}
    add_run(
        store, "2", {i: v2_score(k) for k, i in enumerate(item_ids())}, settings=v2, details=details
    )
    if swap:
        flipped = {i: v2_score(k) if k % 10 else 1 - v2_score(k) for k, i in enumerate(item_ids())}
        add_run(store, "2", flipped, settings={**v2, "swap_texts": True})
