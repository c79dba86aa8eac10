"""One evaluator against the people at the segment, group and system level, with CIs.

- ``segment``: every item (cell) flattened, mt-metrics-eval's ``average_by='none'``;
- ``group``: per group (input) the correlation across the systems that answered it, then
  the plain mean over groups (``average_by='item'``); a group where people or the
  evaluator give every system one value has no correlation: it is left out and counted;
- ``system``: per-system means of the items both scored, then the statistic over systems.

Intervals are 95 % percentile bootstraps resampling what the level rests on: groups (all
their items together) at the segment level, groups at the group level, systems and groups
at the system level (Deutsch et al. 2021's "both"), systems alone for soft pairwise
accuracy, whose p-values are computed once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreement.bootstrap import draw_counts, percentile_ci
from agreement.metaeval import batched, stats
from agreement.metaeval.segment_boot import segment_bootstrap

SEGMENT, GROUP, SYSTEM = "segment", "group", "system"
LEVELS = (SEGMENT, GROUP, SYSTEM)
CORRELATIONS = ("pearson", "spearman", "kendall_b", "kendall_c")
STATISTICS = {
    SEGMENT: (*CORRELATIONS, "acc_eq"),
    GROUP: (*CORRELATIONS, "acc_eq"),
    SYSTEM: (*CORRELATIONS, "pairwise_accuracy", "soft_pairwise_accuracy"),
}
MIN_UNITS = 3
#: What each level counts as its n.
UNITS = {SEGMENT: "items", GROUP: "groups", SYSTEM: "systems"}
SPA_PERMUTATIONS = 1000


@dataclass(frozen=True)
class Figure:
    """One statistic of one evaluator (or annotator) at one level."""

    evaluator: str
    level: str
    statistic: str
    value: float | None
    n: int | None
    ci: tuple[float, float] | None = None
    resampled: str | None = None
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON row."""
        return {
            "evaluator": self.evaluator,
            "level": self.level,
            "statistic": self.statistic,
            "value": self.value,
            "n": self.n,
            "ci": list(self.ci) if self.ci else None,
            "resampled": self.resampled,
            "reason": self.reason,
            **self.extra,
        }


def _finite(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


@dataclass
class Paired:
    """The people's and one evaluator's matrices restricted to the cells both have."""

    people: np.ndarray  # systems x groups, NaN outside the shared cells
    metric: np.ndarray
    grouped: bool

    @classmethod
    def of(cls, people: np.ndarray, metric: np.ndarray, grouped: bool) -> Paired:
        ok = np.isfinite(people) & np.isfinite(metric)
        return cls(np.where(ok, people, np.nan), np.where(ok, metric, np.nan), grouped)

    @property
    def valid(self) -> np.ndarray:
        return np.isfinite(self.people)

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(people, evaluator, group code) of every shared cell."""
        s, g = np.nonzero(self.valid)
        return self.people[s, g], self.metric[s, g], g

    def system_means(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-system means over the shared cells (systems with none left out)."""
        v = self.valid
        has = v.any(1)
        with np.errstate(invalid="ignore"):
            h = np.nanmean(self.people[has], axis=1)
            m = np.nanmean(self.metric[has], axis=1)
        return h, m


def _ci(samples: np.ndarray | None) -> tuple[tuple[float, float] | None, str | None]:
    if samples is None:
        return None, None
    return percentile_ci(np.asarray(samples, dtype=float))


def _figure(
    who: str,
    level: str,
    name: str,
    value: float,
    n: int,
    samples: np.ndarray | None,
    resampled: str | None,
    extra: dict[str, Any] | None = None,
    why_no_ci: str | None = None,
) -> Figure:
    v = _finite(value)
    if v is None:
        return Figure(
            who, level, name, None, n, None, None, "undefined: a constant side", extra or {}
        )
    ci, ci_why = _ci(samples) if samples is not None else (None, why_no_ci)
    extra = dict(extra or {})
    if ci is None and (ci_why or why_no_ci):
        extra["ci_reason"] = ci_why or why_no_ci
    return Figure(who, level, name, v, n, ci, resampled if ci else None, None, extra)


def _left_out(who: str, level: str, n: int | None, why: str) -> list[Figure]:
    return [Figure(who, level, s, None, n, reason=why) for s in STATISTICS[level]]


def segment_figures(
    who: str, p: Paired, n_resamples: int, seed: int
) -> tuple[list[Figure], float | None]:
    """The segment level; returns the figures and acc_eq's threshold."""
    x, y, g = p.flat()
    n = len(x)
    if n < MIN_UNITS:
        return _left_out(
            who, SEGMENT, n, f"n={n}: fewer than {MIN_UNITS} items scored by both"
        ), None
    cal, counts = stats.segment_pairs(x, y)
    values = {
        "pearson": stats.pearson(x, y),
        "spearman": stats.spearman(x, y),
        "kendall_b": stats.kendall_from_counts(counts, "b", x, y),
        "kendall_c": stats.kendall_from_counts(counts, "c", x, y),
        "acc_eq": cal.value,
    }
    boot, why = ({}, {})
    if n_resamples:
        boot, why = segment_bootstrap(x, y, g, cal.threshold, n_resamples, seed)
    unit = "groups" if p.grouped else "items"
    out = []
    for name, value in values.items():
        extra = {"threshold": cal.threshold} if name == "acc_eq" else None
        out.append(
            _figure(who, SEGMENT, name, value, n, boot.get(name), unit, extra, why.get(name))
        )
    return out, cal.threshold


def _group_rows(p: Paired) -> tuple[np.ndarray, np.ndarray]:
    """Groups x systems matrices of the groups two or more systems answered."""
    h, m = p.people.T, p.metric.T
    keep = np.isfinite(h).sum(1) >= 2
    return h[keep], m[keep]


def group_figures(who: str, p: Paired, n_resamples: int, seed: int) -> list[Figure]:
    """The group level: per-group statistic across systems, then the plain mean."""
    h, m = _group_rows(p)
    if len(h) < MIN_UNITS:
        return _left_out(
            who, GROUP, len(h), f"n={len(h)}: fewer than {MIN_UNITS} groups answered by 2+ systems"
        )
    per_group = {name: batched.FUNCTIONS[name](h, m) for name in CORRELATIONS}
    rows = [(hr[np.isfinite(hr)], mr[np.isfinite(hr)]) for hr, mr in zip(h, m, strict=True)]
    cal = stats.acc_eq(rows)
    per_group["acc_eq"] = batched.acc_eq(h, m, cal.threshold)
    w = draw_counts(len(h), n_resamples, seed) if n_resamples else None
    out = []
    for name in STATISTICS[GROUP]:
        v = per_group[name]
        ok = np.isfinite(v)
        n_ok = int(ok.sum())
        extra: dict[str, Any] = {"n_constant": int(len(v) - n_ok)}
        if name == "acc_eq":
            extra = {"threshold": cal.threshold}
        if n_ok < MIN_UNITS:
            out.append(
                Figure(
                    who,
                    GROUP,
                    name,
                    None,
                    n_ok,
                    reason=f"n={n_ok}: fewer than {MIN_UNITS} groups where neither side is constant",
                    extra=extra,
                )
            )
            continue
        value = float(v[ok].mean()) if name != "acc_eq" else cal.value
        samples = None
        if w is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                samples = (w @ np.where(ok, v, 0.0)) / (w @ ok.astype(float))
        out.append(_figure(who, GROUP, name, value, n_ok, samples, "groups", extra))
    return out


def system_resamples(p: Paired, n_resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    """(B, S) resampled system means of people and evaluator and each column's system:
    groups drawn with replacement, then systems (``origin``)."""
    keep = p.valid.any(1)
    h, m = p.people[keep], p.metric[keep]
    ok = np.isfinite(h)
    w = draw_counts(h.shape[1], n_resamples, seed)  # (B, groups)
    cnt = ok.astype(float) @ w.T  # (S, B)
    with np.errstate(invalid="ignore", divide="ignore"):
        hs = (np.where(ok, h, 0.0) @ w.T) / cnt
        ms = (np.where(ok, m, 0.0) @ w.T) / cnt
    rng = np.random.default_rng(seed + 1)
    origin = rng.integers(0, h.shape[0], size=(n_resamples, h.shape[0]))
    rows = np.arange(n_resamples)[:, None]
    return hs.T[rows, origin], ms.T[rows, origin], origin


def _complete(p: Paired) -> tuple[np.ndarray, np.ndarray] | None:
    """Systems x groups of the groups every scored system answered (None: fewer than 2)."""
    keep = p.valid.any(1)
    h, m = p.people[keep], p.metric[keep]
    full = np.isfinite(h).all(0)
    if full.sum() < 2:
        return None
    return h[:, full], m[:, full]


def system_figures(who: str, p: Paired, n_resamples: int, seed: int) -> list[Figure]:
    """The system level: statistics over per-system means, and soft pairwise accuracy."""
    h, m = p.system_means()
    k = len(h)
    if k < MIN_UNITS:
        return _left_out(who, SYSTEM, k, f"n={k}: fewer than {MIN_UNITS} systems scored by both")
    boot = system_resamples(p, n_resamples, seed) if n_resamples else None
    unit = "systems and groups" if p.grouped else "systems and items"
    out = []
    names = STATISTICS[SYSTEM][:-1]
    resampled = batched.several(boot[0], boot[1], names, boot[2]) if boot is not None else {}
    for name in names:
        f = batched.FUNCTIONS[name]
        value = float(f(h[None, :], m[None, :])[0])
        samples = resampled.get(name)
        extra = {}
        if name == "pairwise_accuracy":
            agree, pairs = stats.pairwise_accuracy(h, m)
            extra = {"n_pairs": pairs, "n_agree": agree}
        out.append(_figure(who, SYSTEM, name, value, k, samples, unit, extra))
    out.append(_soft(who, p, k, n_resamples, seed))
    return out


#: p-values by the bytes of their systems x groups matrix: the people's matrix is the same
#: for every evaluator, and the comparisons ask again for each evaluator's (bounded)
_P_VALUES: dict[bytes, np.ndarray] = {}


def _p_values(m: np.ndarray) -> np.ndarray:
    key = np.ascontiguousarray(m).tobytes() + str(m.shape).encode()
    if key not in _P_VALUES:
        if len(_P_VALUES) >= 64:
            _P_VALUES.clear()
        _P_VALUES[key] = stats.pairwise_p_values(m, SPA_PERMUTATIONS)
    return _P_VALUES[key]


def soft_gaps(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(S, S) |people's - evaluator's| p-value that system i beats j (upper triangle)."""
    return np.abs(_p_values(h) - _p_values(m))


def soft_pair_gaps(p: Paired) -> np.ndarray | None:
    """Each system pair's gap (``soft_gaps``' upper triangle) on the groups every system
    answered; None where soft pairwise accuracy is left out."""
    full = _complete(p)
    if full is None:
        return None
    gap = soft_gaps(*full)
    return gap[np.triu_indices(gap.shape[0], 1)]


def _soft(who: str, p: Paired, k: int, n_resamples: int, seed: int) -> Figure:
    name = "soft_pairwise_accuracy"
    full = _complete(p)
    if full is None:
        return Figure(
            who,
            SYSTEM,
            name,
            None,
            k,
            reason="needs every system scored on the same 2+ groups (per-item scores of all "
            "systems on shared inputs)",
        )
    h, m = full
    gap = soft_gaps(h, m)
    upper = np.triu_indices(h.shape[0], 1)
    value = float(1.0 - gap[upper].mean())
    samples = None
    if n_resamples:
        rng = np.random.default_rng(seed + 2)
        origin = rng.integers(0, h.shape[0], size=(n_resamples, h.shape[0]))
        a, b = origin[:, :, None], origin[:, None, :]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        pair = (lo != hi) & np.triu(np.ones((h.shape[0],) * 2, dtype=bool), 1)
        g = np.where(pair, gap[lo, hi], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            samples = 1.0 - g.sum((1, 2)) / pair.sum((1, 2))
    extra = {"n_groups": int(h.shape[1]), "permutations": SPA_PERMUTATIONS}
    return _figure(who, SYSTEM, name, value, h.shape[0], samples, "systems", extra)
