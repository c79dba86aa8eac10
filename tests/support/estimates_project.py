"""A synthetic project for the estimates: systems, a judge on every item, few people.

Seeded; the human value of an item is its hidden quality (binary: a coin with that
rate), the judge sees it with noise and a bias, so the estimates have a known truth.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import workbench_api as wb

#: (system, true rate of 1s / mean quality)
SYSTEMS = (("alpha", 0.7), ("beta", 0.45))


def build(
    store,
    name: str = "est",
    *,
    kind: str = "binary",
    n_items: int = 400,
    n_labelled: int = 60,
    annotators: int = 1,
    seed: int = 0,
    judge_accuracy: float = 0.85,
    evaluator: str = "toyjudge",
) -> pd.DataFrame:
    """Create the project; return the truth frame (item_id, generator, truth, judge)."""
    rng = np.random.default_rng(seed)
    wb.create_project(store, name, kind, settings={"k": max(1, annotators)})
    rows = []
    for i in range(n_items):
        system, rate = SYSTEMS[i % len(SYSTEMS)]
        if kind == "binary":
            truth = float(rng.random() < rate)
            judge = truth if rng.random() < judge_accuracy else 1 - truth
        else:
            truth = float(np.clip(rng.normal(rate, 0.2), 0, 1))
            judge = float(np.clip(truth + rng.normal(0.1, 0.1), 0, 1))
        rows.append((f"i{i:05d}", system, truth, judge, f"q{i // len(SYSTEMS)}"))
    truth = pd.DataFrame(rows, columns=["item_id", "generator", "truth", "judge", "query"])
    wb.add_items(
        store,
        name,
        pd.DataFrame(
            {
                "item_id": truth["item_id"],
                "text": [f"answer {i}" for i in range(n_items)],
                "generator": truth["generator"],
                "query": truth["query"],
            }
        ),
    )
    labelled = truth.sample(n=n_labelled, random_state=seed) if n_labelled else truth.iloc[:0]
    labels = [
        (r.item_id, f"ann{a}", "label", r.truth)
        for r in labelled.itertuples()
        for a in range(annotators)
    ]
    if labels:
        frame = pd.DataFrame(labels, columns=["item_id", "annotator", "field", "value"])
        if kind == "binary":
            frame["value"] = frame["value"].astype(int)
        wb.add_labels(store, name, frame.assign(status="submitted"))
    wb.add_scores(
        store,
        name,
        pd.DataFrame(
            {
                "item_id": truth["item_id"],
                "evaluator": evaluator,
                "field": "label",
                "value": truth["judge"],
            }
        ),
    )
    truth["labelled"] = truth["item_id"].isin(set(labelled["item_id"]))
    return truth
