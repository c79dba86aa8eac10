"""The human-ceiling test (Judge's Verdict): kappa z on worked examples computed here by
hand, and the figure in the alignment document, card, text and report of the toy project."""

from __future__ import annotations

import statistics
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from alignment.human_ceiling import human_ceiling
from annotation_store import Store
from tests.alignment_fixtures import PEOPLE, build_toy, human, v2_score


def kappa(a: list[int], b: list[int], levels: list[int], quadratic: bool = False) -> float:
    """Cohen's kappa from the disagreement form 1 - sum(w O) / sum(w E)."""
    n = len(a)
    w = {(i, j): ((i - j) ** 2 if quadratic else float(i != j)) for i in levels for j in levels}
    observed = sum(w[x, y] for x, y in zip(a, b, strict=True)) / n
    pa = {i: a.count(i) / n for i in levels}
    pb = {j: b.count(j) / n for j in levels}
    expected = sum(w[i, j] * pa[i] * pb[j] for i in levels for j in levels)
    return 1 - observed / expected


def frame(rows: dict[str, list[int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [(f"u{k}", who, v) for who, vs in rows.items() for k, v in enumerate(vs)],
        columns=["item_id", "annotator", "value"],
    )


PEOPLE_BINARY = {
    "A": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
    "B": [1, 1, 1, 1, 0, 0, 0, 0, 0, 1],
    "C": [1, 1, 1, 0, 1, 0, 0, 0, 1, 0],
}


def test_binary_worked_example_kappas_by_hand_give_a_super_consistent_judge() -> None:
    # pairs: A|B and A|C agree on 8 of 10 with half yes each (kappa 0.6), B|C on 6 (0.2);
    # the judge copies A: kappa 1 with A, 0.6 with B and C
    judge = pd.Series(PEOPLE_BINARY["A"], index=[f"u{k}" for k in range(10)], dtype=float)
    out = human_ceiling(judge, frame(PEOPLE_BINARY), ordered=True, weights=None)
    pairs = [kappa(PEOPLE_BINARY[a], PEOPLE_BINARY[b], [0, 1]) for a, b in combinations("ABC", 2)]
    assert pairs == pytest.approx([0.6, 0.6, 0.2])
    mine = statistics.mean(kappa(PEOPLE_BINARY[a], PEOPLE_BINARY["A"], [0, 1]) for a in "ABC")
    z = (mine - statistics.mean(pairs)) / statistics.stdev(pairs)  # (0.733 - 0.467) / 0.231
    assert out["z"] == pytest.approx(z) and out["z"] == pytest.approx(1.1547, abs=1e-4)
    assert out["verdict"].startswith("super-consistent")
    assert out["kappa"] == "Cohen's kappa" and out["people"]["n_pairs"] == 3 and out["n"] == 10
    means = np.mean([PEOPLE_BINARY[a] for a in "ABC"], axis=0)
    assert out["correlation"]["r"] == pytest.approx(np.corrcoef(judge, means)[0, 1])
    assert out["correlation"]["passes"]  # 0.866 >= 0.80


PEOPLE_ORDINAL = {
    "A": [1, 2, 3, 4, 5, 3, 2, 4],
    "B": [1, 2, 4, 4, 5, 2, 2, 5],
    "C": [2, 2, 3, 5, 4, 3, 1, 4],
}


def test_ordinal_worked_example_uses_quadratic_weights_and_rounds_the_judge() -> None:
    judge_scores = [1.2, 2.0, 3.4, 4.0, 4.6, 3.0, 2.2, 4.4]  # on the scale: 1 2 3 4 5 3 2 4
    judge = pd.Series(judge_scores, index=[f"u{k}" for k in range(8)])
    out = human_ceiling(judge, frame(PEOPLE_ORDINAL), ordered=True, weights="quadratic")
    levels = [1, 2, 3, 4, 5]
    pairs = [
        kappa(PEOPLE_ORDINAL[a], PEOPLE_ORDINAL[b], levels, True) for a, b in combinations("ABC", 2)
    ]
    rounded = [1, 2, 3, 4, 5, 3, 2, 4]
    mine = statistics.mean(kappa(PEOPLE_ORDINAL[a], rounded, levels, True) for a in "ABC")
    assert out["kappa"] == "quadratic-weighted kappa"
    assert [p["kappa"] for p in out["people"]["pairs"]] == pytest.approx(pairs)
    assert out["judge"]["mean"] == pytest.approx(mine)
    z = (mine - statistics.mean(pairs)) / statistics.stdev(pairs)
    assert out["z"] == pytest.approx(z)


def test_undefined_cases_say_why() -> None:
    two = {k: PEOPLE_BINARY[k] for k in "AB"}
    judge = pd.Series(PEOPLE_BINARY["A"], index=[f"u{k}" for k in range(10)], dtype=float)
    out = human_ceiling(judge, frame(two), ordered=True, weights=None)
    assert out["z"] is None and "three annotators" in out["reason"]
    same = {"A": [1, 0] * 5, "B": [1, 0] * 5, "C": [1, 0] * 5}
    out = human_ceiling(judge, frame(same), ordered=True, weights=None)
    assert out["z"] is None and "same kappa" in out["reason"]
    wide = frame({k: list(range(12)) for k in "ABC"})
    out = human_ceiling(judge, wide, ordered=True, weights="quadratic")
    assert "12 distinct values" in out["reason"]


def test_toy_document_card_text_and_report_carry_the_z(
    store: Store, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from alignment.card import card_markdown, evaluation_card
    from alignment.table import alignment_table
    from commands import main

    build_toy(store, swap=False)
    doc = alignment_table(store, "toy", n_resamples=0)
    row = {r["label"]: r for r in doc["versions"]}["judge:toy v2"]
    hc = row["probes"]["human_ceiling"]
    ks = range(2, 40)  # v2's few-shot items 0 and 1 are left out
    people = {w: [human(k, w) for k in ks] for w in range(len(PEOPLE))}
    judge = [v2_score(k) for k in ks]
    pairs = [kappa(people[a], people[b], [0, 1]) for a, b in combinations(range(3), 2)]
    mine = statistics.mean(kappa(people[w], judge, [0, 1]) for w in range(3))
    z = (mine - statistics.mean(pairs)) / statistics.stdev(pairs)
    assert hc["z"] == pytest.approx(z) and hc["n"] == 38
    text = card_markdown(evaluation_card(doc, "judge:toy v2"))
    assert "## Human ceiling (Judge's Verdict)" in text
    assert f"| z of the judge's Cohen's kappa among the people's | {z:.2f}: " in text
    main(["--db", sqlite_url, "alignment", "toy", "--resamples", "0"])
    assert f"human ceiling: z {z:.2f}" in capsys.readouterr().out
    from reports.judge_alignment import probe_rows

    assert any(f"{z:.2f}" in cell for cell in probe_rows(doc)[-1])


def test_unordered_labels_skip_the_correlation_filter_and_use_plain_kappa() -> None:
    people = {
        "A": ["x", "y", "z", "x", "y", "z", "x", "y"],
        "B": ["x", "y", "z", "y", "y", "z", "x", "x"],
        "C": ["x", "z", "z", "x", "y", "y", "x", "y"],
    }
    judge = pd.Series(["x", "y", "z", "x", "y", "z", "y", "y"], index=[f"u{k}" for k in range(8)])
    out = human_ceiling(judge, frame(people), ordered=False, weights=None)  # type: ignore[arg-type]
    code = {"x": 0, "y": 1, "z": 2}
    c = {k: [code[v] for v in vs] for k, vs in people.items()}
    j = [code[v] for v in judge]
    pairs = [kappa(c[a], c[b], [0, 1, 2]) for a, b in combinations("ABC", 2)]
    mine = statistics.mean(kappa(c[a], j, [0, 1, 2]) for a in "ABC")
    assert out["z"] == pytest.approx((mine - statistics.mean(pairs)) / statistics.stdev(pairs))
    assert out["correlation"] == {"reason": "no correlation filter on unordered labels"}
    assert out["kappa"] == "Cohen's kappa"
