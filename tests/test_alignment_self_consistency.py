"""Self-consistency beside the people: flip rate, the judge's alpha among its samples and
the people's alpha on the toy project, against a nominal alpha and a Wilson interval
computed here by hand."""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

import numpy as np
import pytest

from annotation_store import Store
from tests.alignment_fixtures import PEOPLE, build_toy, human, v2_score


def nominal_alpha(units: list[list[int]]) -> float:
    """Krippendorff's nominal alpha from the coincidence matrix: 1 - (n - 1) * o_disagree
    / sum_{c != k} n_c n_k, each unit's ordered pairs weighted 1 / (m - 1)."""
    o: Counter[tuple[int, int]] = Counter()
    for u in units:
        for a, b in permutations(u, 2):
            o[a, b] += 1 / (len(u) - 1)
    n_c: Counter[int] = Counter()
    for (a, _), w in o.items():
        n_c[a] += w
    n = sum(n_c.values())
    disagree = sum(w for (a, b), w in o.items() if a != b)
    expected = sum(n_c[a] * n_c[b] for a in n_c for b in n_c if a != b)
    return 1 - (n - 1) * disagree / expected


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_toy_flip_rate_self_alpha_and_people_alpha_by_hand(
    store: Store, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from alignment.card import card_markdown, evaluation_card
    from alignment.table import alignment_table
    from commands import main

    build_toy(store, swap=False)
    doc = alignment_table(store, "toy", n_resamples=0)
    sc = {r["label"]: r for r in doc["versions"]}["judge:toy v2"]["probes"]["self_consistency"]
    ks = range(2, 40)  # few-shot items 0 and 1 out
    samples = [[1, 0, 1] if k == 3 else [v2_score(k)] * 3 for k in ks]
    assert sc["flip_rate"]["value"] == pytest.approx(1 / 38) and sc["flip_rate"]["n"] == 38
    assert sc["flip_rate"]["ci"] == pytest.approx(list(wilson(1, 38)))
    assert sc["self_alpha"]["value"] == pytest.approx(nominal_alpha(samples))
    people = [[human(k, w) for w in range(len(PEOPLE))] for k in ks]
    assert sc["people_alpha"]["value"] == pytest.approx(nominal_alpha(people))
    assert sc["people_alpha"]["n"] == 38 and sc["people_alpha"]["ci"] is None  # 0 resamples
    v1 = {r["label"]: r for r in doc["versions"]}["judge:toy v1"]["probes"]["self_consistency"]
    assert v1["flip_rate"]["value"] is None and "samples > 1" in v1["flip_rate"]["reason"]
    text = card_markdown(evaluation_card(doc, "judge:toy v2"))
    assert f"| flip rate (items whose samples differ) | {1 / 38:.3f} [" in text
    assert f"| people's alpha (nominal) | {nominal_alpha(people):.3f} | 38 |" in text
    main(["--db", sqlite_url, "alignment", "toy", "--resamples", "0"])
    assert f"flip rate {1 / 38:.3f}" in capsys.readouterr().out


def test_bootstrap_interval_brackets_the_alpha() -> None:
    from alignment.self_consistency import alpha_with_ci

    rng = np.random.default_rng(1)
    truth = rng.integers(0, 2, 60)
    data = np.array([np.where(rng.random(60) < 0.15, 1 - truth, truth) for _ in range(3)], float)
    out = alpha_with_ci(data, "nominal", 200, 0)
    units = [[int(x) for x in data[:, j]] for j in range(60)]
    assert out["value"] == pytest.approx(nominal_alpha(units)) and out["n"] == 60
    assert out["ci"][0] < out["value"] < out["ci"][1]


def test_bootstrap_weighs_the_items_by_the_products_shared_draws() -> None:
    """Alpha's interval weighs each pairable item's coincidences by the seeded draw counts
    every other interval of the product uses (agreement.bootstrap.draws), to the last bit:
    the same labels give the same interval on every page."""
    from agreement.alpha import alpha_from_coincidences, unit_coincidences
    from agreement.bootstrap import draw_counts
    from alignment import self_consistency

    rng = np.random.default_rng(3)
    data = rng.integers(1, 5, (4, 90)).astype(float)
    data[rng.random((4, 90)) < 0.2] = np.nan
    counts = np.stack([(data == v).sum(axis=0) for v in (1, 2, 3, 4)], axis=1)
    per_unit = unit_coincidences(counts[counts.sum(axis=1) >= 2])
    n = len(per_unit)
    weights = draw_counts(n, 150, 7)
    draws = alpha_from_coincidences(
        (weights @ per_unit).reshape(-1, 4, 4), np.arange(1.0, 5.0), "interval"
    )
    got = draws[np.isfinite(draws)]
    expected = [float(np.percentile(got, 2.5)), float(np.percentile(got, 97.5))]
    out = self_consistency.alpha_with_ci(data, "interval", 150, 7)
    assert out["ci"] == expected and out["n"] == n
