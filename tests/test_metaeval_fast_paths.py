"""The meta-evaluation's fast paths give what the plain computations give (bench/metaeval.py
measures why they exist)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agreement.bootstrap import draw_counts
from agreement.metaeval import segment_boot, stats
from annotation_store import Store
from tests.test_metaeval import _project


def _row(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    x = rng.integers(0, 5, n) / 4.0  # people: few levels, many ties
    if kind == "continuous":
        y = x + rng.normal(0, 0.3, n)
    elif kind == "grid":  # ties among the evaluator's differences too
        y = np.round(x + rng.normal(0, 0.3, n), 1)
    else:  # an evaluator that disagrees: the best threshold ties everything
        y = -x + rng.normal(0, 0.01, n)
    return x, y


@pytest.mark.parametrize("kind", ["continuous", "grid", "reversed"])
@pytest.mark.parametrize("n", [2, 3, 7, 40, 300])
def test_one_row_acc_eq_matches_the_sorted_pairs(kind: str, n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(5):
        x, y = _row(rng, n, kind)
        fast = stats.acc_eq([(x, y)])
        plain = stats._acc_eq_sorted([(x, y)])
        assert fast.threshold == plain.threshold
        assert fast.value == pytest.approx(plain.value, abs=1e-12)
        assert fast.n_rows == plain.n_rows == 1


def test_one_row_acc_eq_with_constant_sides() -> None:
    x = np.array([1.0, 1.0, 1.0])
    y = np.array([0.2, 0.5, 0.9])
    # people tie every pair: the threshold that ties every evaluator pair is right
    assert stats.acc_eq([(x, y)]) == stats.TieCalibration(1.0, 0.7, 1)
    assert stats.acc_eq([(y, x)]) == stats._acc_eq_sorted([(y, x)])
    short = (np.array([1.0]), np.array([2.0]))
    assert stats.acc_eq([short, (x, y)]).threshold == 0.7  # a one-item row is skipped


def _resampled(x, y, group, w_row):
    take = np.concatenate([np.flatnonzero(group == g).repeat(c) for g, c in enumerate(w_row)])
    return x[take], y[take]


@pytest.mark.parametrize("epsilon", [0.0, 0.15])
def test_segment_bootstrap_equals_the_statistics_of_each_resample(epsilon: float) -> None:
    # groups of 1-6 items, people on 5 levels, an evaluator on a coarse grid: ties on both
    # sides, within a group and across groups, and differences equal to the threshold
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 7, 9)
    group = np.repeat(np.arange(9), sizes)
    x = rng.integers(0, 5, len(group)) / 4.0
    y = np.round(x + rng.normal(0, 0.4, len(group)), 1)
    order = rng.permutation(len(group))  # items need not come sorted by group
    x, y, group = x[order], y[order], group[order]
    boot, why = segment_boot.segment_bootstrap(x, y, group, epsilon, 40, 11)
    assert why == {}
    w = draw_counts(9, 40, 11)
    for b in range(40):
        xs, ys = _resampled(x, y, group, w[b])
        expected = {
            "pearson": stats.pearson(xs, ys),
            "spearman": stats.spearman(xs, ys),
            "kendall_b": stats.kendall(xs, ys, "b"),
            "kendall_c": stats.kendall(xs, ys, "c"),
            "acc_eq": stats.acc_eq_rows([(xs, ys)], epsilon)[0],
        }
        for name, value in expected.items():
            assert boot[name][b] == pytest.approx(value, abs=1e-12, nan_ok=True), (name, b)


def test_rows_with_the_same_people_share_one_people_side() -> None:
    rng = np.random.default_rng(5)
    group = np.repeat(np.arange(12), 4)
    x = rng.integers(0, 5, len(group)) / 4.0
    ys = [np.round(x + rng.normal(0, s, len(group)), 1) for s in (0.2, 0.5)]
    segment_boot._LAST.clear()
    shared = [segment_boot.segment_bootstrap(x, y, group, 0.1, 30, 4)[0] for y in ys]
    side = segment_boot._people_side(x.copy(), group.copy(), 30, 4)
    assert side is segment_boot._people_side(x, group, 30, 4)  # built once, not per row
    assert side is not segment_boot._people_side(x, group, 31, 4)  # other draws: rebuilt
    for y, got in zip(ys, shared, strict=True):
        segment_boot._LAST.clear()
        fresh = segment_boot.segment_bootstrap(x, y, group, 0.1, 30, 4)[0]
        for name, values in fresh.items():
            assert np.array_equal(got[name], values, equal_nan=True), name


def test_near_codes_are_the_float_tests_runs() -> None:
    # decimals whose sums and differences round: u[a] + eps and u[b] - u[a] disagree
    rng = np.random.default_rng(8)
    for _ in range(30):
        u = np.unique(np.round(rng.uniform(0, 3, 40), rng.integers(1, 3)))
        d = np.abs(np.subtract.outer(u, u))
        for eps in (*rng.choice(d[d > 0], 5), 0.1, 0.3):
            lo, hi = segment_boot._near_codes(u, float(eps))
            near = d <= eps
            codes = np.arange(len(u))
            run = (codes[None, :] >= lo[:, None]) & (codes[None, :] <= hi[:, None])
            assert np.array_equal(near, run), eps


@pytest.mark.parametrize("df", [1, 2, 3, 5, 11, 19, 20, 40, 97, 500, 1397])
def test_t_lower_tail_is_scipys_stdtr(df: int) -> None:
    from scipy.special import stdtr

    for t in (-0.01, -0.3, -1.0, -1.7, -2.5, -4.0, -8.0, -20.0, -60.0):
        expected = float(stdtr(df, t))
        assert stats.t_lower_tail(df, t) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert stats.t_lower_tail(df, 0.0) == 0.5
    assert stats.t_lower_tail(df, -math.inf) == 0.0
    assert math.isnan(stats.t_lower_tail(df, math.nan))


PROBE = """
import contextlib, io, json, sys
from commands import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(sys.argv[1:]) == 0
doc = json.loads(out.getvalue())
williams = [c["p"] for c in doc["comparisons"] if c["test"] == "williams"]
print(json.dumps([len(williams), sorted({m.split(".")[0] for m in sys.modules if m.startswith("scipy")})]))
"""


def test_metaeval_process_imports_no_scipy(store: Store, sqlite_url: str, tmp_path: Path) -> None:
    _project(store, tmp_path)
    args = ["--db", sqlite_url, "metaeval", "me", "--field", "resolution", "--group", "input"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args, "--resamples", "20", "--json"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    n_williams, scipy_modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert n_williams > 0  # Williams' test ran, with its t tail
    assert scipy_modules == []


def test_batched_complete_paths_match_the_masked_ones() -> None:
    from agreement.correlation_tests import average_ranks
    from agreement.metaeval import batched

    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, 9).astype(float)  # one row of people, ties included
    y = rng.integers(0, 5, (30, 9)).astype(float)
    origin = np.broadcast_to(np.arange(9), y.shape)  # no copies: the masked path, same pairs
    fast = batched.pair_counts(x[None, :], y)
    masked = batched.pair_counts(np.broadcast_to(x, y.shape), y, origin)
    for key in ("con", "dis", "tie_x", "tie_y", "tie_both"):
        assert fast[key].shape == (30,)
        assert np.array_equal(fast[key], masked[key]), key
    ok = np.ones(y.shape, dtype=bool)
    assert np.array_equal(batched.ranks(y, ok), np.array([average_ranks(r) for r in y]))
    assert np.array_equal(batched._distinct(y, ok), [len(np.unique(r)) for r in y])
    for name in ("kendall_b", "kendall_c", "spearman", "pairwise_accuracy"):
        one_row = batched.several(x[None, :], y, (name,))[name]
        repeated = batched.several(np.broadcast_to(x, y.shape), y, (name,), origin)[name]
        assert np.allclose(one_row, repeated, rtol=0, atol=1e-15, equal_nan=True), name


def test_cells_hold_the_mean_of_their_items() -> None:
    import pandas as pd

    from agreement.metaeval.grid import _cells

    ids = ["a", "b", "c", "d"]
    sys_codes = pd.Series([0, 0, 1, 1], index=ids, dtype="int8")
    grp_codes = pd.Series([0, 0, 1, 0], index=ids, dtype="int8")
    # a and b share a cell; c has no value; "z" is no item of the grid
    values = pd.Series([0.2, 0.5, np.nan, 1.0, 7.0], index=["a", "b", "c", "d", "z"])
    cells = _cells(values, sys_codes, grp_codes, (2, 2))
    expected = np.array([[0.35, np.nan], [1.0, np.nan]])
    assert np.allclose(cells, expected, rtol=0, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("kind", ["continuous", "grid", "reversed"])
def test_segment_pairs_counts_are_pair_counts(kind: str) -> None:
    rng = np.random.default_rng(9)
    for n in (2, 5, 60):
        x, y = _row(rng, n, kind)
        cal, counts = stats.segment_pairs(x, y)
        assert counts == stats.pair_counts(x, y)
        assert cal == stats.acc_eq([(x, y)])


def _dense_segment_pairs(x: np.ndarray, y: np.ndarray):
    """The items x items version ``segment_pairs`` replaced: every difference sorted."""
    n = len(x)
    order = np.argsort(y, kind="stable")
    ys = y[order]
    cx = np.unique(x, return_inverse=True)[1][order]
    dy = ys[None, :] - ys[:, None]
    up, y_tie, same = dy > 0, dy == 0, cx[:, None] == cx[None, :]
    plus, minus = same & up, (cx[:, None] < cx[None, :]) & up
    tie_both = (int(np.count_nonzero(same & y_tie)) - n) // 2
    tie_x = (int(np.count_nonzero(same)) - n) // 2 - tie_both
    tie_y = (int(np.count_nonzero(y_tie)) - n) // 2 - tie_both
    pairs = n * (n - 1) // 2
    con = int(np.count_nonzero(minus))
    counts = stats.PairCounts(con, pairs - con - tie_x - tie_y - tie_both, tie_x, tie_y, tie_both)
    base = con + tie_both
    ups = np.sort(dy[plus])
    if len(ups) == 0:
        return stats.TieCalibration(base / pairs, 0.0, 1), counts
    ends = np.flatnonzero(np.r_[ups[1:] != ups[:-1], True])
    gain = (ends + 1) - np.searchsorted(np.sort(dy[minus]), ups[ends], side="right")
    best = int(np.argmax(gain))
    if gain[best] <= 0:
        return stats.TieCalibration(base / pairs, 0.0, 1), counts
    return stats.TieCalibration((base + int(gain[best])) / pairs, float(ups[ends[best]]), 1), counts


@pytest.mark.parametrize("kind", ["continuous", "grid", "reversed", "levels", "noisy"])
def test_segment_pairs_match_every_difference_sorted(kind: str) -> None:
    rng = np.random.default_rng(21)
    thresholds = set()
    for n in (2, 3, 9, 80, 700):
        if kind == "levels":  # the evaluator's few values: long runs of ties
            x = rng.integers(0, 5, n) / 4.0
            y = np.round(x * 2 + rng.normal(0, 0.6, n)) / 2
        elif kind == "noisy":  # a weak evaluator: the best threshold is a wide one
            x = rng.integers(0, 3, n) / 2.0
            y = x * 0.1 + rng.normal(0, 1.0, n)
        else:
            x, y = _row(rng, n, kind)
        got, want = stats.segment_pairs(x, y), _dense_segment_pairs(x, y)
        assert got == want, (n, got, want)
        thresholds.add(got[0].threshold)
    if kind in ("continuous", "noisy"):  # thresholds past 0 were searched
        assert len(thresholds) > 1


def test_segment_bootstrap_shortcuts_match_the_general_sums() -> None:
    from agreement.metaeval import segment_boot as sb

    rng = np.random.default_rng(4)
    sizes = np.array([3, 1, 4, 2, 5])  # unequal groups
    g_items = np.repeat(np.arange(5), sizes)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    n = len(g_items)
    distinct = rng.permutation(n)  # every value once: the shortcuts
    present = (rng.integers(0, 3, (40, 5)) > 0).astype(float)
    # one unused code more takes the general path with the same values
    assert np.array_equal(
        sb._tie_blocks(g_items, distinct, 5, n), sb._tie_blocks(g_items, distinct, 5, n + 1)
    )
    assert np.array_equal(
        sb._distinct_drawn(present, g_items, distinct, 5, n),
        sb._distinct_drawn(present, g_items, distinct, 5, n + 1),
    )
    m = sb.signs(rng.integers(0, 4, n).astype(np.int16))
    for matrix in (m, m > 0):  # int8 signs and a boolean mask
        direct = np.array(
            [[int(matrix[g_items == g][:, g_items == h].sum()) for h in range(5)] for g in range(5)]
        )
        assert np.array_equal(sb._block_sums(matrix, starts), direct) and direct.any()
    w = rng.integers(0, 4, (30, 6)).astype(float)
    blocks = rng.integers(-50, 50, (6, 8)).astype(float)
    assert np.array_equal(sb._products(w, blocks), w @ blocks)
    big = blocks * 2.0**22  # sums past 2**24: the double-precision product
    assert np.array_equal(sb._products(w, big), w @ big)
