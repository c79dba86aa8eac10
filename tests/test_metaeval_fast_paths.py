"""The meta-evaluation's fast paths give what the plain computations give (bench/metaeval.py
measures why they exist)."""

from __future__ import annotations

import numpy as np
import pytest

from agreement.metaeval import stats


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
