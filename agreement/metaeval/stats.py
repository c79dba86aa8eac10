"""The meta-evaluation's statistics on one pair of vectors (people, evaluator).

Each follows the arithmetic of Google's mt-metrics-eval (``mt_metrics_eval/stats.py``):
a constant vector gives NaN for Pearson and Spearman, Kendall's tau-b and tau-c are
computed from the counts of concordant, discordant and tied pairs, pairwise accuracy
counts a pair as agreeing when the signs of the two differences are equal (a tie in both
agrees), and acc_eq is the tie-calibrated pairwise accuracy of Deutsch et al. (2023)
with the threshold that maximises it. ``tests/test_metaeval_reference.py`` compares them
with mt-metrics-eval's own values (``tests/data/metaeval_mtme_reference.json``).

scipy.stats is not imported: it costs most of a second per process, and the tail
functions needed here live in scipy.special.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agreement.correlation_tests import average_ranks


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r (NaN for fewer than 2 values or a constant vector)."""
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    xm, ym = x - x.mean(), y - y.mean()
    r = float(np.dot(xm, ym) / math.sqrt(float(np.dot(xm, xm)) * float(np.dot(ym, ym))))
    return max(-1.0, min(1.0, r))


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return pearson(average_ranks(x), average_ranks(y))


@dataclass(frozen=True)
class PairCounts:
    """Pairs of items by how people (``x``) and the evaluator (``y``) order them."""

    con: int
    dis: int
    tie_x: int  # tied only in the people's values
    tie_y: int  # tied only in the evaluator's
    tie_both: int

    @property
    def total(self) -> int:
        """Every pair."""
        return self.con + self.dis + self.tie_x + self.tie_y + self.tie_both


_CHUNK = 2048


def pair_counts(x: np.ndarray, y: np.ndarray, epsilon: float = 0.0) -> PairCounts:
    """Count the pairs; evaluator differences of at most ``epsilon`` are ties."""
    if epsilon == 0:
        return _exact_pair_counts(x, y)
    n = len(x)
    con = dis = tx = ty = tb = 0
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        dx = x[start:stop, None] - x[None, :]
        dy = y[start:stop, None] - y[None, :]
        upper = np.arange(start, stop)[:, None] < np.arange(n)[None, :]
        xt = dx == 0
        yt = np.abs(dy) <= epsilon if epsilon > 0 else dy == 0
        tb += int((xt & yt & upper).sum())
        tx += int((xt & ~yt & upper).sum())
        ty += int((~xt & yt & upper).sum())
        same = (dx > 0) & (dy > 0) | (dx < 0) & (dy < 0)
        con += int((same & ~yt & upper).sum())
        dis += int((~same & ~xt & ~yt & upper).sum())
    return PairCounts(con, dis, tx, ty, tb)


def _exact_pair_counts(x: np.ndarray, y: np.ndarray) -> PairCounts:
    """``pair_counts`` without a threshold, from the values' ranks among the distinct
    values (small integers): every ordered pair counted, then halved."""
    n = len(x)
    cx = np.unique(x, return_inverse=True)[1].astype(np.int32)
    cy = np.unique(y, return_inverse=True)[1].astype(np.int32)
    con = dis = tx = ty = tb = 0
    for start in range(0, n, _CHUNK):
        sx = np.sign(cx[start : start + _CHUNK, None] - cx[None, :]).astype(np.int8)
        sy = np.sign(cy[start : start + _CHUNK, None] - cy[None, :]).astype(np.int8)
        prod = sx * sy
        con += int(np.count_nonzero(prod > 0))
        dis += int(np.count_nonzero(prod < 0))
        xt, yt = sx == 0, sy == 0
        both = int(np.count_nonzero(xt & yt))
        tb += both
        tx += int(np.count_nonzero(xt)) - both
        ty += int(np.count_nonzero(yt)) - both
    # each pair was counted twice, each item once with itself (a tie on both sides)
    return PairCounts(con // 2, dis // 2, tx // 2, ty // 2, (tb - n) // 2)


def kendall_from_counts(c: PairCounts, variant: str, x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b or tau-c from the pair counts (NaN when one side is all ties)."""
    tot = c.total
    xtie, ytie = c.tie_x + c.tie_both, c.tie_y + c.tie_both
    if tot == 0 or xtie == tot or ytie == tot:
        return math.nan
    if variant == "b":
        return (c.con - c.dis) / math.sqrt(tot - xtie) / math.sqrt(tot - ytie)
    m = min(len(set(x.tolist())), len(set(y.tolist())))
    return 2 * (c.con - c.dis) / (len(x) ** 2 * (m - 1) / m)


def kendall(x: np.ndarray, y: np.ndarray, variant: str = "b") -> float:
    """Kendall's tau-b (``variant="b"``) or tau-c (``"c"``)."""
    if len(x) < 2:
        return math.nan
    return kendall_from_counts(pair_counts(x, y), variant, x, y)


def pairwise_accuracy(x: np.ndarray, y: np.ndarray) -> tuple[int, int]:
    """(agreeing pairs, pairs): a pair agrees when both differences have the same sign,
    zero included (mt-metrics-eval's ``Agreement``)."""
    c = pair_counts(x, y)
    return c.con + c.tie_both, c.total


def acc_eq_rows(rows: list[tuple[np.ndarray, np.ndarray]], epsilon: float) -> list[float]:
    """acc_eq of each row (pairs tied within ``epsilon`` in the evaluator's values count
    as ties); rows of fewer than two items give NaN."""
    out = []
    for x, y in rows:
        c = pair_counts(x, y, epsilon)
        out.append((c.con + c.tie_both) / c.total if c.total else math.nan)
    return out


@dataclass(frozen=True)
class TieCalibration:
    """The best acc_eq, its threshold and how many rows it averages."""

    value: float
    threshold: float
    n_rows: int


def acc_eq(rows: list[tuple[np.ndarray, np.ndarray]]) -> TieCalibration:
    """Tie-calibrated pairwise accuracy (Deutsch et al. 2023), averaged over rows.

    Every absolute difference of evaluator scores within a row is a candidate threshold
    (with 0); a pair whose difference is at most the threshold counts as a tie. The
    threshold with the highest mean accuracy wins (the first, i.e. the smallest, when
    several do), as in mt-metrics-eval's ``tau_optimization`` with ``sample_rate=1``.
    One row (the segment level) takes ``_acc_eq_one_row``: same threshold, exact counts.
    """
    usable = [(x, y) for x, y in rows if len(x) >= 2]
    if len(usable) == 1:
        return _acc_eq_one_row(*usable[0])
    return _acc_eq_sorted(rows)


def _acc_eq_sorted(rows: list[tuple[np.ndarray, np.ndarray]]) -> TieCalibration:
    """``acc_eq`` of many rows: every pair's difference sorted, each row's change added."""
    diffs, gains, sizes, base = [], [], [], []
    for k, (x, y) in enumerate(rows):
        n = len(x)
        if n < 2:
            continue
        i, j = np.triu_indices(n, 1)
        dx, dy = x[i] - x[j], y[i] - y[j]
        xt, yt = dx == 0, dy == 0
        before = (xt & yt) | ((dx > 0) & (dy > 0)) | ((dx < 0) & (dy < 0))
        after = xt  # as a tie, the pair agrees when people tie it too
        diffs.append(np.abs(y[i] - y[j]))
        gains.append((after.astype(float) - before) / len(i))
        sizes.append(k)
        base.append(before.sum() / len(i))
    if not diffs:
        return TieCalibration(math.nan, 0.0, 0)
    n_rows = len(diffs)
    d = np.concatenate(diffs)
    g = np.concatenate(gains)
    order = np.argsort(d)  # the order within one difference does not matter
    d, g = d[order], g[order]
    # mt-metrics-eval adds each row's change to a running total, pair by pair
    totals = math.fsum(base) + np.cumsum(g)
    last = np.r_[d[1:] != d[:-1], True]  # the total after every pair of one difference
    thresholds = np.r_[0.0, d[last]]
    taus = np.r_[math.fsum(base), totals[last]] / n_rows
    # a first threshold equal to 0 replaces the start (same threshold, ties included)
    if len(d) and d[0] == 0.0:
        thresholds, taus = thresholds[1:], taus[1:]
    best = int(np.nanargmax(taus))
    return TieCalibration(float(taus[best]), float(thresholds[best]), n_rows)


def _acc_eq_one_row(x: np.ndarray, y: np.ndarray) -> TieCalibration:
    """``acc_eq`` of one row from integer pair counts (``segment_pairs``)."""
    return segment_pairs(x, y)[0]


def segment_pairs(x: np.ndarray, y: np.ndarray) -> tuple[TieCalibration, PairCounts]:
    """acc_eq of one row (2+ items) and its pair counts, without an items x items pass.

    Raising the threshold past a pair's difference turns it into a tie: +1 when people tie
    it (``plus``), -1 when it was concordant (``minus``), no change otherwise. The best
    threshold is 0 or one of the ``plus`` differences. The counts come from the items in
    the evaluator's order with the people's values as a few codes (integers, exact). The
    ``minus`` differences are only gathered up to a bound past which no threshold can gain
    more than the best below it (all plus pairs minus the minus ones under the bound), so a
    band of near pairs is sorted, not a million differences. The value is the exact count
    over the pairs, rounded once, where the many-row path adds each pair's share in turn:
    the two can differ in the last digit, the threshold not.
    """
    n = len(x)
    order = np.argsort(y, kind="stable")
    ys = y[order]
    ux, cx = np.unique(x, return_inverse=True)
    cx = cx[order]
    kx = len(ux)
    # runs of one evaluator value (the items are in its order)
    new_run = np.r_[True, ys[1:] != ys[:-1]]
    run = np.cumsum(new_run) - 1
    n_runs = int(run[-1]) + 1

    def pairs_of(counts: np.ndarray) -> int:
        return int((counts * (counts - 1) // 2).sum())

    same_x = pairs_of(np.bincount(cx, minlength=kx))
    same_y = pairs_of(np.bincount(run, minlength=n_runs))
    tie_both = pairs_of(np.bincount(run * kx + cx, minlength=n_runs * kx))
    # concordant: j in a later run than i with a higher people's code; per run, how many
    # items of each code came in the runs before it
    per_run = np.bincount(run * kx + cx, minlength=n_runs * kx).reshape(n_runs, kx)
    before = np.cumsum(per_run, 0) - per_run
    lower = np.cumsum(before, 1) - before  # items before the run with a lower code
    con = int(lower[run, cx].sum())
    pairs = n * (n - 1) // 2
    tie_x, tie_y = same_x - tie_both, same_y - tie_both
    counts = PairCounts(con, pairs - con - tie_x - tie_y - tie_both, tie_x, tie_y, tie_both)
    base = con + tie_both
    ups = _plus_differences(ys, cx, kx)
    if len(ups) == 0:
        return TieCalibration(base / pairs, 0.0, 1), counts
    ends = np.flatnonzero(np.r_[ups[1:] != ups[:-1], True])
    candidates = ups[ends]
    reach = max(len(candidates) // 8, 1)
    while True:
        bound = candidates[min(reach, len(candidates)) - 1]
        minus = _minus_differences(ys, cx, bound)
        gain = (ends + 1) - np.searchsorted(minus, candidates, side="right")
        inside = candidates <= bound
        best = int(np.argmax(np.where(inside, gain, np.iinfo(gain.dtype).min)))
        # a threshold past the bound gains at most every plus pair minus the minus ones
        # under it: if that cannot beat the best so far, the best is final
        if reach >= len(candidates) or len(ups) - len(minus) <= max(int(gain[best]), 0):
            break
        reach *= 4
    if gain[best] <= 0:  # no threshold beats 0 (the first of equals wins)
        return TieCalibration(base / pairs, 0.0, 1), counts
    cal = TieCalibration((base + int(gain[best])) / pairs, float(candidates[best]), 1)
    return cal, counts


def _plus_differences(ys: np.ndarray, cx: np.ndarray, kx: int) -> np.ndarray:
    """Sorted positive differences ``ys[j] - ys[i]`` (i before j) of the pairs people tie."""
    by_code = np.argsort(cx, kind="stable")  # within a code still in the evaluator's order
    starts = np.r_[0, np.cumsum(np.bincount(cx, minlength=kx))]
    out = []
    for c in range(kx):
        v = ys[by_code[starts[c] : starts[c + 1]]]
        if len(v) < 2:
            continue
        d = v[None, :] - v[:, None]
        out.append(d[d > 0])
    return np.sort(np.concatenate(out)) if out else np.empty(0)


def _minus_differences(ys: np.ndarray, cx: np.ndarray, bound: float) -> np.ndarray:
    """Sorted positive differences up to ``bound`` of the concordant pairs (the later item
    has the higher people's code), by offsets along the evaluator's order: a difference
    grows with the offset, so the band ends where none is within the bound."""
    out = []
    n = len(ys)
    for step in range(1, n):
        d = ys[step:] - ys[:-step]
        near = d <= bound
        if not near.any():
            break
        keep = near & (d > 0) & (cx[:-step] < cx[step:])
        out.append(d[keep])
    return np.sort(np.concatenate(out)) if out else np.empty(0)


def williams_p(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """Williams' test that two dependent correlations with people differ (Graham and
    Baldwin 2014): r12, r13 the two evaluators' correlations with people, r23 the
    evaluators' correlation with each other, n the paired values. One-sided by default,
    in the direction of the observed difference, as WMT reports it."""
    if n <= 3 or any(math.isnan(v) for v in (r12, r13, r23)):
        return math.nan
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    tden = math.sqrt(2 * (n - 1) / (n - 3) * k + rbar**2 * (1 - r23) ** 3)
    if tden == 0:
        return math.nan
    p = t_lower_tail(n - 3, -abs(tnum / tden))
    return p if one_sided else 2 * p


def t_lower_tail(df: int, t: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom and ``t <= 0``: half the
    regularized incomplete beta I_x(df/2, 1/2) at x = df / (df + t^2), from its continued
    fraction. It is ``scipy.special.stdtr`` to about 1e-14 relative (tests), without
    importing scipy.special (a third of a second of a ``metaeval`` process)."""
    if math.isnan(t):
        return math.nan
    if t > 0:
        raise ValueError("t_lower_tail takes t <= 0")
    if math.isinf(t):
        return 0.0
    if t == 0:
        return 0.5
    a, b = df / 2, 0.5
    t2 = t * t
    x, y = df / (df + t2), t2 / (df + t2)  # y is 1 - x without the cancellation
    # log of x^a y^b / B(a, 1/2), each term without a long float's worth of cancellation
    log_front = _log_gamma_ratio(a) - _LOG_SQRT_PI - a * math.log1p(t2 / df) + b * math.log(y)
    if x < (a + 1) / (a + b + 2):  # the fraction converges fast on this side
        tail = math.exp(log_front) * _beta_fraction(a, b, x) / a
    else:
        tail = 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b
    return 0.5 * tail


_LOG_SQRT_PI = 0.5 * math.log(math.pi)


def _log_gamma_ratio(a: float) -> float:
    """log(Gamma(a + 1/2) / Gamma(a)); for large a from its asymptotic series, where the
    difference of two large lgamma values would lose a dozen digits' worth at a = 700."""
    if a < 20:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    return (
        0.5 * math.log(a) - 1 / (8 * a) + 1 / (192 * a**3) - 1 / (640 * a**5) + 17 / (14336 * a**7)
    )


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The incomplete beta's continued fraction (modified Lentz, Numerical Recipes)."""
    tiny = 1e-300

    def guard(v: float) -> float:
        return tiny if abs(v) < tiny else v

    c, d = 1.0, 1.0 / guard(1.0 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        even = m * (b - m) * x / ((a - 1 + m2) * (a + m2))
        d = 1.0 / guard(1.0 + even * d)
        c = guard(1.0 + even / c)
        h *= d * c
        odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))
        d = 1.0 / guard(1.0 + odd * d)
        c = guard(1.0 + odd / c)
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


def pairwise_p_values(seg: np.ndarray, n_permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """(S, S) p-values that system i beats system j (upper triangle; NaN elsewhere) by a
    paired permutation test over segments, as Thompson et al.'s ``pce`` module draws it
    (float32, one swap matrix shared by every pair). ``seg`` is systems x segments."""
    n_sys, n_seg = seg.shape
    rng = np.random.default_rng(seed)
    signs = rng.random(size=(n_permutations, n_seg), dtype=np.float32)
    np.rint(signs, out=signs, casting="same_kind")
    signs *= 2.0
    signs -= 1.0
    seg32 = seg.astype(np.float32)
    sys_scores = np.sum(seg32, axis=1)
    partial = np.matmul(signs, seg32.T)
    out = np.full((n_sys, n_sys), np.nan)
    for i in range(n_sys):
        for j in range(i + 1, n_sys):
            null = partial[:, i] - partial[:, j]
            out[i, j] = np.sum(null >= sys_scores[i] - sys_scores[j]) / n_permutations
    return out


def soft_pairwise_accuracy(
    people: np.ndarray, metric: np.ndarray, n_permutations: int = 1000
) -> float:
    """1 - PCE (Thompson et al. 2024): one minus the mean absolute difference between the
    people's and the evaluator's p-values that one system beats another. Both are
    systems x segments, complete."""
    hp = pairwise_p_values(people, n_permutations)
    mp = pairwise_p_values(metric, n_permutations)
    upper = np.triu_indices(people.shape[0], 1)
    return float(1.0 - np.mean(np.abs(hp - mp)[upper]))
