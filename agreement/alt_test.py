"""The alternative annotator test (Calderon, Reichart and Dror, 2025): can a judge stand
in for one of the human annotators?

For every annotator j in turn (left out), on each item j labelled that also has a judge
score and at least one other annotator's label:

- alignment with the remaining annotators R_i = the other labels of the item:
  discrete fields: the share of R_i equal to the value; numeric fields: minus the root
  mean squared difference to R_i;
- W_f = 1 if the judge's alignment >= annotator j's, W_h = 1 if j's >= the judge's
  (a tie counts for both);
- rho_f(j) = mean W_f, rho_h(j) = mean W_h over j's items; d = W_f - W_h per item.

Per annotator, H0: rho_f(j) - rho_h(j) <= -epsilon against H1: > -epsilon, a one-sided
paired t-test (the one-sample t-test of d against -epsilon, scipy). The p-values of all
annotators are corrected together by Benjamini-Yekutieli at level q (statsmodels). The
winning rate omega is the share of annotators whose H0 is rejected; the judge passes
when omega >= 0.5. The average advantage probability rho is the mean of rho_f(j).

With ``test="wilcoxon"`` the per-annotator p comes from the one-sided Wilcoxon
signed-rank test of d + epsilon > 0 instead (zero differences dropped, scipy's default),
the variant the paper suggests when annotators have few items.

The paper asks for at least 3 annotators, each with at least 30 items; annotators with
fewer items are left out (and counted) and with fewer than 3 left the test is "not
enough data". epsilon 0.2 is the paper's default (smaller for expert annotators).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreement.stats_lite import ttest_greater_p

MIN_ANNOTATORS = 3
MIN_ITEMS = 30
EPSILON = 0.2
Q = 0.05


@dataclass(frozen=True)
class AnnotatorTest:
    """The test with one annotator left out."""

    annotator: str
    n: int
    rho_f: float
    rho_h: float
    p: float
    p_adjusted: float | None = None
    rejected: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "annotator": self.annotator,
            "n": self.n,
            "rho_f": self.rho_f,
            "rho_h": self.rho_h,
            "p": self.p,
            "p_adjusted": self.p_adjusted,
            "rejected": self.rejected,
        }


@dataclass(frozen=True)
class AltTestResult:
    """Winning rate, average advantage probability and the per-annotator tests."""

    winning_rate: float | None
    advantage: float | None
    passed: bool | None
    epsilon: float
    q: float
    annotators: tuple[AnnotatorTest, ...] = ()
    left_out: dict[str, int] = field(default_factory=dict)
    reason: str | None = None
    test: str = "ttest"

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``reason`` says why the figures are missing)."""
        out: dict[str, Any] = {
            "winning_rate": self.winning_rate,
            "advantage": self.advantage,
            "passed": self.passed,
            "epsilon": self.epsilon,
            "q": self.q,
            "test": self.test,
            "annotators": [a.to_dict() for a in self.annotators],
            "left_out": dict(self.left_out),
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def alignment_score(value: float, others: np.ndarray, discrete: bool) -> float:
    """How well ``value`` agrees with the other annotators' labels (higher is better)."""
    if discrete:
        return float(np.mean(others == value))
    return -float(np.sqrt(np.mean((others - value) ** 2)))


TESTS = ("ttest", "wilcoxon")


class _LabelGrid:
    """Each item's labels as one padded row (in the order they were given), so every
    annotator's scores come from whole-array operations instead of a loop over items."""

    def __init__(self, names: np.ndarray, values: np.ndarray, judge: np.ndarray) -> None:
        self.names, self.values, self.judge = names, values, judge

    @classmethod
    def of(cls, labels: pd.DataFrame, judge: pd.Series) -> _LabelGrid:
        ordered = labels.sort_values("item_id", kind="stable")
        items = ordered["item_id"].to_numpy(object)
        codes, uniques = pd.factorize(items)
        n_items = len(uniques)
        counts = np.bincount(codes, minlength=n_items) if n_items else np.zeros(0, int)
        width = int(counts.max()) if n_items else 0
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]) if n_items else counts
        slot = np.arange(len(codes)) - starts[codes]
        names = np.full((n_items, width), None, dtype=object)
        values = np.full((n_items, width), np.nan)
        names[codes, slot] = ordered["annotator"].to_numpy(object)
        values[codes, slot] = ordered["value"].to_numpy(float)
        judged = judge.groupby(level=0).first()
        return cls(names, values, judged.reindex(uniques).to_numpy(float))

    def scores(self, who: Any, discrete: bool) -> tuple[np.ndarray, np.ndarray]:
        """(judge's, annotator's) alignment scores on the items ``who`` labelled that
        others labelled too (as :func:`alignment_score`)."""
        mine_mask = self.names == who
        others = ~mine_mask & (self.names != None)  # noqa: E711 - elementwise on objects
        has_mine, n_others = mine_mask.any(axis=1), others.sum(axis=1)
        rows = has_mine & (n_others > 0)
        first_mine = mine_mask[rows].argmax(axis=1)[:, None]
        mine = np.take_along_axis(self.values[rows], first_mine, axis=1)[:, 0]
        vals, mask, count = self.values[rows], others[rows], n_others[rows]
        judge = self.judge[rows]
        return _score(judge, vals, mask, count, discrete), _score(mine, vals, mask, count, discrete)


def _score(
    value: np.ndarray, others: np.ndarray, mask: np.ndarray, count: np.ndarray, discrete: bool
) -> np.ndarray:
    """:func:`alignment_score` of each row's ``value`` against its masked ``others``."""
    if discrete:
        return np.where(mask, others == value[:, None], False).sum(axis=1) / count
    diff = np.where(mask, others - value[:, None], 0.0)
    return -np.sqrt((diff * diff).sum(axis=1) / count)


def one_sided_p(d: np.ndarray, epsilon: float, test: str = "ttest") -> float:
    """p of H0: mean(d) <= -epsilon (one-sample t-test, one-sided; or the Wilcoxon
    signed-rank test of d + epsilon). Without variance the answer is certain: 0 when
    every d is above -epsilon, else 1."""
    if test not in TESTS:
        raise ValueError(f"unknown alt-test {test!r} (choose {' or '.join(TESTS)})")
    if np.ptp(d) == 0:
        return 0.0 if d[0] > -epsilon else 1.0
    if test == "wilcoxon":
        from scipy import stats  # heavy: imported only for this test, asked for by name

        shifted = d + epsilon
        if np.all(shifted == 0):
            return 1.0
        return float(stats.wilcoxon(shifted, alternative="greater").pvalue)
    return ttest_greater_p(d, -epsilon)


def by_adjust(p: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Yekutieli: (rejected, adjusted p-values) at false discovery rate q.

    Written out (statsmodels' ``multipletests(method="fdr_by")``, which the tests compare
    with, is not in the default install): step-up on the sorted p-values with
    c(m) = 1 + 1/2 + ... + 1/m, adjusted values made monotone from the largest down.
    """
    p = np.asarray(p, dtype=float)
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    order = np.argsort(p, kind="mergesort")
    ranked = p[order]
    scale = np.sum(1.0 / np.arange(1, m + 1)) * m / np.arange(1, m + 1)
    passing = np.nonzero(ranked <= q / scale)[0]
    rejected = np.zeros(m, dtype=bool)
    if passing.size:
        rejected[order[: passing[-1] + 1]] = True
    adjusted_sorted = np.minimum(1.0, np.minimum.accumulate((ranked * scale)[::-1])[::-1])
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return rejected, adjusted


def alt_test(
    judge: pd.Series,
    labels: pd.DataFrame,
    *,
    discrete: bool,
    epsilon: float = EPSILON,
    q: float = Q,
    min_annotators: int = MIN_ANNOTATORS,
    min_items: int = MIN_ITEMS,
    test: str = "ttest",
) -> AltTestResult:
    """The test of a judge's per-item scores ``judge`` (indexed by item_id) against human
    ``labels`` (item_id, annotator, value numeric)."""
    labels = labels.dropna(subset=["value"])
    # as objects: pandas' Arrow-string isin converts each of the 10,000 ids one by one
    labels = labels[labels["item_id"].astype(object).isin(judge.index.astype(object))]
    grid = _LabelGrid.of(labels, judge)
    tests: list[tuple[str, int, float, float, float]] = []
    left_out: dict[str, int] = {}
    for who in sorted(labels["annotator"].unique()):
        s_f, s_h = grid.scores(who, discrete)
        wf, wh = (s_f >= s_h).astype(float), (s_h >= s_f).astype(float)
        if len(wf) < min_items:
            left_out[str(who)] = len(wf)
            continue
        d = wf - wh
        tests.append(
            (
                str(who),
                len(wf),
                float(np.mean(wf)),
                float(np.mean(wh)),
                one_sided_p(d, epsilon, test),
            )
        )
    if len(tests) < min_annotators:
        return AltTestResult(
            None,
            None,
            None,
            epsilon,
            q,
            left_out=left_out,
            test=test,
            reason=(
                f"not enough data: {len(tests)} annotator(s) with at least {min_items} "
                f"items scored by the judge and labelled by others (needs {min_annotators})"
            ),
        )
    rejected, adjusted = by_adjust(np.array([t[4] for t in tests]), q)
    per = tuple(
        AnnotatorTest(who, n, rf, rh, p, float(adj), bool(rej))
        for (who, n, rf, rh, p), adj, rej in zip(tests, adjusted, rejected, strict=True)
    )
    omega = float(np.mean(rejected))
    return AltTestResult(
        omega,
        float(np.mean([t.rho_f for t in per])),
        omega >= 0.5,
        epsilon,
        q,
        per,
        left_out,
        test=test,
    )
