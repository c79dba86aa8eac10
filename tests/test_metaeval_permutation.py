"""A paired permutation test for every statistic of the meta-evaluation, segment-level
tau-c and soft pairwise accuracy included: tiny cases whose null distribution can be
written down by hand, identical evaluators (delta 0, p = 1) and a clearly better one
(small p) through ``meta_evaluate``."""

from __future__ import annotations

import numpy as np
import pytest

from agreement.metaeval import compare, stats
from agreement.metaeval.document import meta_evaluate
from agreement.metaeval.grid import Grid
from agreement.metaeval.levels import STATISTICS


def test_segment_tau_c_swaps_the_one_pair_the_evaluators_disagree_on() -> None:
    # people 1 < 2 < 3 < 4; a orders all six pairs as people do, b swaps items 1 and 2
    x = np.array([1.0, 2.0, 3.0, 4.0])
    ya, yb = x.copy(), np.array([2.0, 1.0, 3.0, 4.0])
    tau_a, tau_b = stats.kendall(x, ya, "c"), stats.kendall(x, yb, "c")
    # tau-c = 2 (C - D) / (n^2 (m - 1) / m), n = m = 4: a 12 / 12, b 8 / 12
    assert (tau_a, tau_b) == pytest.approx((1.0, 2 / 3), abs=1e-12)
    null = compare.segment_pair_permutation(
        x, compare.pair_states(x, ya, 0.0), compare.pair_states(x, yb, 0.0), 4000, 3, (4, 4)
    )["kendall_c"]
    # only pair (1, 2) differs: kept, the difference is +1/3; swapped, -1/3
    assert set(np.round(null, 12)) == {round(1 / 3, 12), round(-1 / 3, 12)}
    assert compare.p_value(null, tau_a - tau_b) == pytest.approx(0.5, abs=0.03)


def test_segment_tau_c_keeps_each_evaluators_own_m() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    ya = np.array([1.0, 1.0, 3.0, 4.0, 5.0])  # 4 distinct values
    states = compare.pair_states(x, ya, 0.0)
    # a against itself: no swap changes anything, every difference is 0
    null = compare.segment_pair_permutation(x, states, states, 500, 1, (4, 4))["kendall_c"]
    assert not null.any()
    # b identical to a but normalised by another m: the shift is exactly the scale's
    shifted = compare.segment_pair_permutation(x, states, states, 50, 1, (4, 5))["kendall_c"]
    s = 9  # concordant minus discordant pairs of (x, ya): 9 concordant, 1 tied in ya
    expected = 2 * s / (25 * 3 / 4) - 2 * s / (25 * 4 / 5)
    assert shifted == pytest.approx(np.full(50, expected), abs=1e-12)
    assert 2 * s / (25 * 3 / 4) == pytest.approx(stats.kendall(x, ya, "c"), abs=1e-12)


def test_soft_pairwise_accuracy_swaps_system_pairs() -> None:
    # a's gaps are smaller on two of three system pairs: 0.3 and 0.1 better, one equal
    gap_a, gap_b = np.array([0.1, 0.2, 0.3]), np.array([0.4, 0.3, 0.3])
    delta = (1 - gap_a.mean()) - (1 - gap_b.mean())
    null = compare.soft_pairwise_permutation(gap_a, gap_b, 20000, 5)
    # the null is sum(+-d) / 3 over the 8 equally likely sign patterns of d = (0.3, 0.1, 0);
    # the two patterns keeping both signs reach the observed 0.4 / 3: p = 2 / 8
    assert set(np.round(null * 3, 12)) == {-0.4, -0.2, 0.2, 0.4}
    assert compare.p_value(null, delta) == pytest.approx(0.25, abs=0.015)


SYSTEMS, GROUPS = 8, 30


def _grid(evaluators: dict[str, np.ndarray], people: np.ndarray) -> Grid:
    return Grid(
        "f",
        "generator",
        "input",
        tuple(f"s{i}" for i in range(SYSTEMS)),
        tuple(f"g{j}" for j in range(GROUPS)),
        people,
        evaluators,
        {},
    )


@pytest.fixture(scope="module")
def people() -> np.ndarray:
    rng = np.random.default_rng(11)
    quality = np.linspace(0.0, 1.0, SYSTEMS)[:, None]
    return np.round(quality + rng.normal(0, 0.4, (SYSTEMS, GROUPS)), 1)


def _permutation_rows(doc) -> dict[tuple[str, str], object]:
    return {(c.level, c.statistic): c for c in doc.comparisons if c.test == "permutation"}


def test_identical_evaluators_differ_by_nothing(people: np.ndarray) -> None:
    rng = np.random.default_rng(12)
    m = people + rng.normal(0, 0.3, people.shape)
    doc = meta_evaluate(_grid({"a": m, "copy": m.copy()}, people), n_resamples=200, seed=3)
    rows = _permutation_rows(doc)
    wanted = {(lv, st) for lv, names in STATISTICS.items() for st in names}
    assert set(rows) == wanted  # every statistic at every level is tested
    for key, c in rows.items():
        assert c.delta == 0.0 and c.p == 1.0, (key, c)


def test_a_clearly_better_evaluator_gets_a_small_p(people: np.ndarray) -> None:
    rng = np.random.default_rng(13)
    good = people + rng.normal(0, 0.05, people.shape)
    poor = people + rng.normal(0, 1.0, people.shape)
    doc = meta_evaluate(_grid({"good": good, "poor": poor}, people), n_resamples=500, seed=3)
    rows = _permutation_rows(doc)
    every = ("pearson", "spearman", "kendall_b", "kendall_c", "acc_eq")
    keys = [(lv, s) for lv in ("segment", "group") for s in every]
    for key in [*keys, ("system", "soft_pairwise_accuracy")]:
        c = rows[key]
        assert (c.a, c.b) == ("good", "poor") and c.delta > 0, key
        assert c.p is not None and c.p < 0.05, (key, c.p)
    spa = {f.evaluator: f.value for f in doc.figures if f.statistic == "soft_pairwise_accuracy"}
    assert rows[("system", "soft_pairwise_accuracy")].delta == pytest.approx(
        spa["good"] - spa["poor"], abs=1e-12
    )


def _hybrids(seed: int, shape: tuple[int, int], k: int):
    rng = np.random.default_rng(seed)
    h = np.round(rng.normal(0, 1, shape), 1)  # people with ties
    h[0, 1] = h[3, 2] = np.nan  # cells nobody scored
    h[4] = 0.5  # a group where people give one value
    ok = np.isfinite(h)
    za = np.where(ok, rng.normal(0, 1, shape), np.nan)
    zb = np.where(ok, rng.normal(0, 1, shape), np.nan)
    u = rng.random((k, *shape)) < 0.5
    return h, za, zb, u


def test_group_rank_statistics_without_ties_match_the_pairwise_computation() -> None:
    from agreement.metaeval.group_linear import (
        group_linear_differences,
        group_pearson_differences,
        no_ties,
    )
    from agreement.metaeval.group_perm import group_cell_statistics

    h, za, zb, u = _hybrids(21, (9, 6), 300)
    assert no_ties(za, zb, np.isfinite(h))
    rh, distinct = compare.sorted_ranks(h)
    names = ("spearman", "kendall_b", "kendall_c", "pearson")
    fast = group_linear_differences(h, za, zb, u, rh, distinct, names)
    fast["pearson"] = group_pearson_differences(h, za, zb, u)
    sa, sb = group_cell_statistics(h, za, zb, u, rh, distinct, names)
    for name in names:
        slow = compare._nanmean(sa[name]) - compare._nanmean(sb[name])
        assert np.isfinite(slow).all()
        assert fast[name] == pytest.approx(slow, abs=1e-12), name
    tied = zb.copy()
    tied[1, 2] = za[1, 3]
    assert not no_ties(za, tied, np.isfinite(h))


def test_segment_spearman_without_ties_matches_the_per_value_computation() -> None:
    from agreement.correlation_tests import average_ranks

    rng = np.random.default_rng(22)
    x = np.round(rng.normal(0, 1, 200), 1)
    za, zb = rng.normal(0, 1, 200), rng.normal(0, 1, 200)
    u = compare._swaps(200, 400, 5)
    rx = average_ranks(x)
    fast = compare._rank_pearson(rx, za, zb, u)
    slow = compare._rank_pearson_ties(rx, za, zb, u)
    assert fast == pytest.approx(slow, abs=1e-12)
    # the unswapped mask gives the two evaluators' own Spearman
    none = compare._rank_pearson(rx, za, zb, np.zeros((1, 200), dtype=bool))[0]
    assert none == pytest.approx(stats.spearman(x, za) - stats.spearman(x, zb), abs=1e-12)


def _states_of_each_pair(x: np.ndarray, y: np.ndarray, epsilon: float) -> np.ndarray:
    """The pair codes from the float differences of each pair i < j (the direct way)."""
    i, j = np.triu_indices(len(x), 1)
    dx, dy = x[i] - x[j], y[i] - y[j]
    k = (np.sign(dx) * np.sign(dy)).astype(np.int8) + 1
    t = (dy == 0).astype(np.int8)
    a = np.where(np.abs(dy) <= epsilon, dx == 0, k == 2).astype(np.int8)
    return k + 3 * t + 6 * a


@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.25, 3.0])
def test_pair_histogram_counts_each_pair_once(epsilon: float) -> None:
    rng = np.random.default_rng(17)
    x = rng.integers(0, 5, 90) / 4.0
    ya = np.round(x + rng.normal(0, 0.3, 90), 1)  # ties, and differences at the threshold
    yb = -x + rng.normal(0, 0.2, 90)
    direct = np.bincount(
        _states_of_each_pair(x, ya, epsilon).astype(np.int64) * compare.N_STATES
        + _states_of_each_pair(x, yb, 0.05),
        minlength=compare.N_STATES**2,
    )
    got = compare.pair_histogram(
        compare.pair_states(x, ya, epsilon), compare.pair_states(x, yb, 0.05)
    )
    assert np.array_equal(got, direct)
    assert got.sum() == 90 * 89 // 2 and np.count_nonzero(got) >= 4
