"""The meta-evaluation of one field: every evaluator (and each annotator, the people's own
ceiling) at every level, the tests between evaluators and the significance clusters.

``meta_evaluate(grid)`` computes it; ``to_dict()`` is what ``cli.py metaeval --json``
prints; ``rows()`` gives the document's long form (``common.rows.MeasureRow``, section
``meta_evaluation``) that the export bundle and the reports read.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.metaeval import compare
from agreement.metaeval.compare import PERMUTATION, WILLIAMS, Comparison
from agreement.metaeval.grid import Grid
from agreement.metaeval.levels import (
    GROUP,
    LEVELS,
    SEGMENT,
    SYSTEM,
    UNITS,
    Figure,
    Paired,
    group_figures,
    segment_figures,
    soft_pair_gaps,
    system_figures,
)
from agreement.metaeval.parallel import run_all
from agreement.metaeval.rows import SECTION
from common.rows import MeasureRow

EVALUATOR, ANNOTATOR = "evaluator", "annotator"
SPA = "soft_pairwise_accuracy"
NO_GROUP = "no group column given (--group): the group level needs to know which items answer the same input"


@dataclass
class MetaEvaluation:
    """Figures, comparisons and clusters of one field."""

    field: str
    system_column: str
    group_column: str | None
    figures: list[Figure]
    comparisons: list[Comparison]
    clusters: list[dict[str, Any]]
    roles: dict[str, str]
    notes: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: ``rows``, ``comparisons``, ``clusters`` and context."""
        return {
            "field": self.field,
            "system": self.system_column,
            "group": self.group_column,
            "rows": [
                {**f.to_dict(), "role": self.roles.get(f.evaluator, EVALUATOR)}
                for f in self.figures
            ],
            "comparisons": [c.to_dict() for c in self.comparisons],
            "clusters": self.clusters,
            "notes": self.notes,
            "meta": self.meta,
        }

    def rows(self) -> tuple[MeasureRow, ...]:
        """One row per figure: subject the evaluator (or ``annotator NAME``), level the level."""
        return tuple(
            MeasureRow(
                SECTION,
                f.evaluator,
                self.field,
                f.statistic,
                f.level,
                f.value,
                f.ci,
                f.n,
                None,
                f.reason,
            )
            for f in self.figures
        )


def _level_figures(
    who: str, p: Paired, grouped: bool, levels: Sequence[str], resamples: int, seed: int
) -> tuple[list[Figure], dict[str, float]]:
    out: list[Figure] = []
    thresholds: dict[str, float] = {}
    if SEGMENT in levels:
        seg, eps = segment_figures(who, p, resamples, seed)
        out += seg
        if eps is not None:
            thresholds[SEGMENT] = eps
    if GROUP in levels:
        # without groups the level is left out entirely; the notes say why
        if grouped:
            grp = group_figures(who, p, resamples, seed)
            out += grp
            for f in grp:
                if f.statistic == "acc_eq" and "threshold" in f.extra:
                    thresholds[GROUP] = f.extra["threshold"]
    if SYSTEM in levels:
        out += system_figures(who, p, resamples, seed)
    return out, thresholds


#: One row's work: (who, paired, grouped, levels, resamples, seed, statistics whose
#: per-evaluator states the row prepares for the comparisons, or None).
_RowTask = tuple[str, Paired, bool, Sequence[str], int, int, "set[str] | None"]


def _row(task: _RowTask) -> tuple[list[Figure], dict[str, float], dict[Any, Any]]:
    """A row's figures, its acc_eq thresholds and (for an evaluator, on several
    processes) what every comparison of it reuses."""
    who, p, grouped, levels, resamples, seed, want = task
    figs, thresholds = _level_figures(who, p, grouped, levels, resamples, seed)
    return figs, thresholds, _evaluator_states(who, p, thresholds, levels, want)


def _evaluator_states(
    name: str, p: Paired, thresholds: dict[str, float], levels: Sequence[str], want: set[str] | None
) -> dict[Any, Any]:
    """An evaluator's verdicts on every pair of items and its system-pair gaps, as
    ``_nulls`` would compute them on first use (``want``: the statistics asked)."""
    out: dict[Any, Any] = {}
    if want is None:
        return out
    if SEGMENT in levels and want & {"kendall_b", "kendall_c", "acc_eq"}:
        x, y, _ = p.flat()
        if len(x) <= compare.MAX_PAIR_ITEMS:
            out[name] = compare.pair_states(x, y, thresholds.get(SEGMENT, 0.0))
    if SYSTEM in levels and SPA in want:
        out[(name, SPA)] = soft_pair_gaps(p)
    return out


def _others_mean(annotators: dict[str, np.ndarray], who: str) -> np.ndarray:
    rest = [m for name, m in annotators.items() if name != who]
    with np.errstate(invalid="ignore"), _quiet():
        return np.nanmean(np.stack(rest), axis=0)


class _quiet:
    def __enter__(self) -> None:
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc: object) -> None:
        self._w.__exit__(*exc)


def meta_evaluate(
    grid: Grid,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    levels: Sequence[str] = LEVELS,
    statistics: Sequence[str] | None = None,
    ceiling: bool = True,
    workers: int = 1,
) -> MetaEvaluation:
    """Every figure, test and cluster of ``grid``'s field; ``workers`` > 1 computes the
    rows and the pairs' tests on that many forked processes (same results)."""
    keep = set(statistics) if statistics else None
    roles: dict[str, str] = {}
    paired: dict[str, Paired] = {}
    # on several processes each evaluator's row also prepares what its comparisons reuse
    prepare = None
    if workers > 1 and n_resamples:
        prepare = keep if keep is not None else {"kendall_b", "kendall_c", "acc_eq", SPA}
    tasks: list[_RowTask] = []
    for name, m in grid.evaluators.items():
        p = Paired.of(grid.people, m, grid.grouped)
        paired[name] = p
        roles[name] = EVALUATOR
        want = prepare if len(grid.evaluators) >= 2 else None
        tasks.append((name, p, grid.grouped, levels, n_resamples, seed, want))
    if ceiling and len(grid.annotators) >= 2:
        for person, m in grid.annotators.items():
            label = f"annotator {person}"
            p = Paired.of(_others_mean(grid.annotators, person), m, grid.grouped)
            roles[label] = ANNOTATOR
            tasks.append((label, p, grid.grouped, levels, n_resamples, seed, None))
    figures: list[Figure] = []
    thresholds: dict[str, dict[str, float]] = {}
    states: dict[Any, Any] = {}
    for task, (figs, thr, prepared) in zip(tasks, run_all(_row, tasks, workers), strict=True):
        figures += figs
        states.update(prepared)
        if roles[task[0]] == EVALUATOR:
            thresholds[task[0]] = thr
    if keep is not None:
        figures = [f for f in figures if f.statistic in keep]
    comparisons = _comparisons(
        figures, paired, thresholds, n_resamples, seed, roles, states, workers
    )
    notes = list(grid.notes)
    if not grid.grouped:
        notes.append(f"group level left out: {NO_GROUP}")
    if not grid.evaluators:
        notes.append(f"no evaluator scored {grid.field!r}")
    return MetaEvaluation(
        grid.field,
        grid.system_column,
        grid.group_column,
        figures,
        comparisons,
        _clusters(figures, comparisons, roles),
        roles,
        notes,
        {
            "n_resamples": n_resamples,
            "seed": seed,
            "n_systems": len(grid.systems),
            "n_groups": len(grid.groups) if grid.grouped else None,
            "units": UNITS,
            "ci": "95% percentile bootstrap; each row names what it resampled",
            "williams": "one-sided, in the direction of the observed difference (as WMT)",
            "permutation": "one-sided: share of permutations whose difference (a minus b) "
            "reaches the observed one; cells swapped (Deutsch et al. 2021, both), pairs "
            "swapped for segment-level kendall_b and kendall_c, acc_eq at every level and "
            "soft_pairwise_accuracy (pairs of systems)",
        },
    )


def _value(figures: list[Figure]) -> dict[tuple[str, str, str], Figure]:
    return {(f.evaluator, f.level, f.statistic): f for f in figures}


def _same_items(pa: Paired, pb: Paired) -> bool:
    return bool(np.array_equal(pa.valid, pb.valid))


#: What the pairs' tests read, set for the time of ``_comparisons`` (forked workers see
#: it as it was when they started): paired, thresholds, k, states.
_SHARED: dict[str, Any] = {}
_SHARED_LOCK = threading.Lock()


def _pair_nulls(task: tuple[str, str, list[tuple[str, str]], int]) -> dict[Any, np.ndarray]:
    """One pair's permuted differences (``_nulls``) from ``_SHARED``."""
    e1, e2, cells, seed = task
    paired = _SHARED["paired"]
    return _nulls(
        e1,
        e2,
        paired[e1],
        paired[e2],
        cells,
        _SHARED["thresholds"],
        _SHARED["k"],
        seed,
        _SHARED["states"],
    )


def _comparisons(
    figures: list[Figure],
    paired: dict[str, Paired],
    thresholds: dict[str, dict[str, float]],
    k: int,
    seed: int,
    roles: dict[str, str],
    states: dict[Any, Any] | None = None,
    workers: int = 1,
) -> list[Comparison]:
    by = _value(figures)
    names = [n for n in paired if roles.get(n) == EVALUATOR]
    # per evaluator: pair verdicts, system-pair gaps (computed on first use if not given)
    states = {} if states is None else states
    plan: list[list[Comparison] | tuple[str, str, list[tuple[str, str]], int]] = []
    for idx, (e1, e2) in enumerate(itertools.combinations(names, 2)):
        pa, pb = paired[e1], paired[e2]
        cells = [(lv, st) for (ev, lv, st), f in by.items() if ev == e1 and f.value is not None]
        cells = [
            (lv, st) for lv, st in cells if (f2 := by.get((e2, lv, st))) and f2.value is not None
        ]
        if not cells:
            continue
        if not _same_items(pa, pb):
            na, nb = int(pa.valid.sum()), int(pb.valid.sum())
            why = f"scored different items ({e1}: {na}, {e2}: {nb}): a paired test needs the same items"
            plan.append(
                [Comparison(e1, e2, lv, st, PERMUTATION, None, None, None, why) for lv, st in cells]
            )
            continue
        plan.append((e1, e2, cells, seed + 1000 * (idx + 1)))
    pairs = [step for step in plan if isinstance(step, tuple)]
    nulls: list[dict[Any, np.ndarray]] = [{} for _ in pairs]
    if k and pairs and workers > 1:
        # forked workers read the pairs' data from the module, set for their start; the
        # lock keeps two threads of one process (a web server) from sharing it
        with _SHARED_LOCK:
            _SHARED.update(paired=paired, thresholds=thresholds, k=k, states=states)
            try:
                nulls = run_all(_pair_nulls, pairs, workers)
            finally:
                _SHARED.clear()
    elif k and pairs:
        nulls = [
            _nulls(e1, e2, paired[e1], paired[e2], cells, thresholds, k, s, states)
            for e1, e2, cells, s in pairs
        ]
    found = iter(nulls)
    out: list[Comparison] = []
    for step in plan:
        if isinstance(step, list):
            out += step
            continue
        e1, e2, cells, _ = step
        out += _pair(e1, e2, paired[e1], paired[e2], cells, by, k, next(found))
    return out


def _pair(
    e1: str,
    e2: str,
    pa: Paired,
    pb: Paired,
    cells: list[tuple[str, str]],
    by: dict[tuple[str, str, str], Figure],
    k: int,
    nulls: dict[tuple[str, str], np.ndarray],
) -> list[Comparison]:
    """The pair's Williams and permutation tests (``nulls``: ``_nulls``' differences)."""
    out: list[Comparison] = []
    for lv, st in cells:
        va, vb = by[(e1, lv, st)].value, by[(e2, lv, st)].value
        a, b, sign = (e1, e2, 1.0) if va >= vb else (e2, e1, -1.0)
        delta = abs(va - vb)
        n = by[(e1, lv, st)].n
        if st == "pearson" and lv in (SEGMENT, SYSTEM):
            out.append(_williams(a, b, lv, pa if a == e1 else pb, pb if a == e1 else pa, delta))
        null = nulls.get((lv, st))
        if null is None:
            why = "no permutations (--resamples 0)" if not k else _no_test(lv, st)
            out.append(Comparison(a, b, lv, st, PERMUTATION, delta, None, n, why))
            continue
        out.append(
            Comparison(a, b, lv, st, PERMUTATION, delta, compare.p_value(sign * null, delta), n)
        )
    return out


def _no_test(level: str, statistic: str) -> str:
    if level == SEGMENT and statistic in ("kendall_b", "kendall_c", "acc_eq"):
        return f"no permutation test: more than {compare.MAX_PAIR_ITEMS} items for the pair swaps"
    return "no permutation test"


def _williams(a: str, b: str, level: str, pa: Paired, pb: Paired, delta: float) -> Comparison:
    if level == SEGMENT:
        x, ya, _ = pa.flat()
        _, yb, _ = pb.flat()
    else:
        x, ya = pa.system_means()
        _, yb = pb.system_means()
    p, _ = compare.williams(x, ya, yb)
    p_out = None if p is None or not math.isfinite(p) else p
    why = None if p_out is not None else "undefined (n <= 3 or a constant side)"
    return Comparison(a, b, level, "pearson", WILLIAMS, delta, p_out, len(x), why, {"sided": "one"})


def _nulls(
    e1: str,
    e2: str,
    pa: Paired,
    pb: Paired,
    cells: list[tuple[str, str]],
    thresholds: dict[str, dict[str, float]],
    k: int,
    seed: int,
    states: dict[Any, Any],
) -> dict[tuple[str, str], np.ndarray]:
    """Permuted differences (e1 minus e2) for every (level, statistic) asked."""
    want: dict[str, set[str]] = {}
    for lv, st in cells:
        want.setdefault(lv, set()).add(st)
    out: dict[tuple[str, str], np.ndarray] = {}
    seg = want.get(SEGMENT, set())
    if seg & {"pearson", "spearman"}:
        for st, v in compare.segment_pearson_spearman(
            pa, pb, tuple(sorted(seg & {"pearson", "spearman"})), k, seed
        ).items():
            out[(SEGMENT, st)] = v
    if seg & {"kendall_b", "kendall_c", "acc_eq"}:
        x, ya, _ = pa.flat()
        _, yb, _ = pb.flat()
        if len(x) <= compare.MAX_PAIR_ITEMS:
            # an evaluator's verdicts on every pair: once per evaluator, not per comparison
            if e1 not in states:
                states[e1] = compare.pair_states(x, ya, thresholds[e1].get(SEGMENT, 0.0))
            if e2 not in states:
                states[e2] = compare.pair_states(x, yb, thresholds[e2].get(SEGMENT, 0.0))
            sa, sb = states[e1], states[e2]
            nx = len(np.unique(x))
            m = (min(nx, len(np.unique(ya))), min(nx, len(np.unique(yb))))
            nulls = compare.segment_pair_permutation(x, sa, sb, k, seed + 1, m)
            for st, v in nulls.items():
                if st in seg:
                    out[(SEGMENT, st)] = v
    grp = want.get(GROUP, set())
    cell_stats = tuple(sorted(grp & {"pearson", "spearman", "kendall_b", "kendall_c"}))
    if cell_stats:
        for st, v in compare.group_permutation(pa, pb, cell_stats, k, seed + 2).items():
            out[(GROUP, st)] = v
    if "acc_eq" in grp:
        out[(GROUP, "acc_eq")] = compare.group_acc_eq_permutation(
            pa, pb, thresholds[e1].get(GROUP, 0.0), thresholds[e2].get(GROUP, 0.0), k, seed + 3
        )
    sys_stats = tuple(sorted(want.get(SYSTEM, set()) - {"soft_pairwise_accuracy"}))
    if sys_stats:
        for st, v in compare.system_permutation(pa, pb, sys_stats, k, seed + 4).items():
            out[(SYSTEM, st)] = v
    if "soft_pairwise_accuracy" in want.get(SYSTEM, set()):
        gaps = []
        for name, p in ((e1, pa), (e2, pb)):
            if (name, SPA) not in states:  # its p-values: once per evaluator
                states[(name, SPA)] = soft_pair_gaps(p)
            gaps.append(states[(name, SPA)])
        if gaps[0] is not None and gaps[1] is not None:
            out[(SYSTEM, SPA)] = compare.soft_pairwise_permutation(*gaps, k, seed + 5)
    return out


def _clusters(
    figures: list[Figure], comparisons: list[Comparison], roles: dict[str, str]
) -> list[dict[str, Any]]:
    """WMT's significance clusters per level and statistic, from the permutation tests."""
    p_of = {
        (c.level, c.statistic, c.a, c.b): c.p
        for c in comparisons
        if c.test == PERMUTATION and c.p is not None
    }
    untestable = {
        (c.level, c.statistic, name): c.reason
        for c in comparisons
        if c.test == PERMUTATION and c.p is None
        for name in (c.a, c.b)
    }
    out = []
    for level in LEVELS:
        for statistic in dict.fromkeys(f.statistic for f in figures if f.level == level):
            ranked = sorted(
                (
                    f
                    for f in figures
                    if f.level == level
                    and f.statistic == statistic
                    and f.value is not None
                    and roles.get(f.evaluator) == EVALUATOR
                ),
                key=lambda f: (-f.value, f.evaluator),
            )
            if len(ranked) < 2:
                continue
            best = ranked[0].evaluator
            inside = [
                f
                for f in ranked
                if f.evaluator == best
                or (level, statistic, best, f.evaluator) in p_of
                or (level, statistic, f.evaluator, best) in p_of
            ]
            left = [f for f in ranked if f not in inside]
            order = [f.evaluator for f in inside]
            ranks = compare.clusters(
                order,
                {(a, b): p for (lv, st, a, b), p in p_of.items() if (lv, st) == (level, statistic)},
            )
            out.append(
                {
                    "level": level,
                    "statistic": statistic,
                    "test": PERMUTATION,
                    "alpha": compare.ALPHA,
                    "ranking": [
                        {"evaluator": f.evaluator, "value": f.value, "cluster": r}
                        for f, r in zip(inside, ranks, strict=True)
                    ],
                    "left_out": [
                        {
                            "evaluator": f.evaluator,
                            "reason": untestable.get((level, statistic, f.evaluator))
                            or "not tested against the best evaluator",
                        }
                        for f in left
                    ],
                }
            )
    return out
