"""Data-quality alarms on seeded labels: an identical pair, a straight-liner, a random
clicker and a speeder are each named with their n and sentence; careful annotators
raise nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd

from agreement.alarms import data_quality_alarms

N = 60


def _seeded() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, N)
    noise = lambda p: np.where(rng.random(N) < p, 1 - truth, truth)  # noqa: E731
    careful_a = noise(0.1)
    labels = {
        "ann": careful_a,
        "copy": careful_a.copy(),  # the same answers under a second name
        "bea": noise(0.1),
        "cem": noise(0.05),
        "flat": np.ones(N, dtype=int),  # always "1"
        "rand": rng.integers(0, 2, N),  # ignores the item
    }
    rows = [
        (f"i{i}", who, "label", int(values[i])) for who, values in labels.items() for i in range(N)
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "field", "value"])
    times = pd.DataFrame(
        [
            (who, f"i{i}", 1.5 if who == "rand" else 20.0 + (i % 7))
            for who in labels
            for i in range(N)
        ],
        columns=["annotator", "item_id", "active_seconds"],
    )
    return frame, times


def test_each_seeded_fault_raises_its_alarm_and_nothing_else() -> None:
    labels, times = _seeded()
    alarms = data_quality_alarms(labels, times)
    by_kind = {(a.kind, a.annotators): a for a in alarms}
    assert sorted(by_kind) == [
        ("identical_pair", ("ann", "copy")),
        ("independent", ("flat",)),
        ("independent", ("rand",)),
        ("speeder", ("rand",)),
        ("straight_lining", ("flat",)),
    ]
    pair = by_kind[("identical_pair", ("ann", "copy"))]
    assert (pair.n, pair.figure, pair.field) == (N, 1.0, "label")
    assert pair.sentence == (
        "ann and copy gave the same 'label' label on 60 of 60 shared items (100%): "
        "check that they are two people working independently."
    )
    flat = by_kind[("straight_lining", ("flat",))]
    ones = int((labels[labels["annotator"] != "flat"]["value"] == 1).mean() * 100 + 0.5)
    assert flat.sentence == (
        f"flat gave 'label' the value 1 on 60 of 60 items (100%), the others on {ones}% of "
        "theirs: possible straight-lining."
    )
    rand = by_kind[("independent", ("rand",))]
    assert rand.n == N and abs(rand.figure) < 0.2
    assert rand.sentence.startswith(
        "rand's 'label' labels agree with the others' majority no better than chance: "
        f"Cohen's kappa {rand.figure:.2f} (95 % CI "
    )
    assert rand.sentence.endswith("over 60 items.")
    speeder = by_kind[("speeder", ("rand",))]
    assert (speeder.n, speeder.figure) == (N, 1.5)
    assert speeder.sentence == (
        "rand spent a median 1.5 s per item (active time measured in the browser) over 60 "
        "items, 7% of the others' 23.0 s: "
        "possible speeder."
    )


def test_a_careful_crowd_raises_no_alarm_and_small_samples_are_not_judged() -> None:
    labels, times = _seeded()
    careful = labels[labels["annotator"].isin(["ann", "bea", "cem"])]
    assert data_quality_alarms(careful, times[times["annotator"].isin(["ann", "bea"])]) == []
    few = labels[labels["item_id"].isin([f"i{i}" for i in range(19)])]  # < 20 shared
    assert data_quality_alarms(few) == []


def test_object_answers_and_repeated_labels_count_as_values() -> None:
    """Pairwise answers (objects) compare as values whatever their key order; a repeated
    label of one annotator on one item counts once for pairs (the last one), and every
    row counts for straight-lining."""
    rows = []
    for i in range(60):
        left = {"choice": "A" if i % 3 else "B", "strength": 1 + i % 2}
        right = dict(reversed(list(left.items())))  # same answer, keys in another order
        rows += [(f"i{i}", "ann", "pick", left), (f"i{i}", "twin", "pick", right)]
        rows.append((f"i{i}", "flat", "pick", {"strength": 1, "choice": "A"}))
    rows.append(("i0", "twin", "pick", {"choice": "A", "strength": 2}))  # replaces i0's
    labels = pd.DataFrame(rows, columns=["item_id", "annotator", "field", "value"])
    by_kind = {(a.kind, a.annotators): a for a in data_quality_alarms(labels)}
    pair = by_kind[("identical_pair", ("ann", "twin"))]
    assert (pair.n, pair.figure) == (60, 59 / 60)
    flat = by_kind[("straight_lining", ("flat",))]
    assert (flat.n, flat.figure) == (60, 1.0)
    assert "the value (('choice', 'A'), ('strength', 1)) on 60 of 60 items" in flat.sentence
