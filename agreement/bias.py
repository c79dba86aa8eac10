"""Ego-centric bias as FinGrAct measures it.

On a 0-5 scale, an item is over-estimated by an evaluator when its score is at least
2 points above the mean human score, and under-estimated when at least 2 points below
(a difference of 1 is tolerated). Counts are taken per run and averaged over repeated
runs. Items are split by whether their ``generator`` is the evaluator's own judge model;
a Fisher exact test on [[over_own, not over_own], [over_other, not over_other]] (items,
with the evaluator's score averaged over runs) tells self-preference apart from general
leniency: leniency raises both rates, self-preference only the own-generator one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from agreement.results import Bias

GAP = 2.0
EPS = 1e-9


def _no_item() -> Bias:
    return Bias(
        None,
        None,
        None,
        0,
        None,
        0,
        None,
        0,
        0,
        reason="no item with both an evaluator score and human scores",
    )


def ego_centric_bias(frame: pd.DataFrame, judge_model: str | None) -> Bias:
    """Bias from a frame with item_id, run, score, human (both on 0-5) and generator."""
    if frame.empty:
        return _no_item()
    item, _ = pd.factorize(frame["item_id"], sort=True)
    return bias_from_arrays(
        item,
        frame["run"].to_numpy(),
        frame["score"].to_numpy(dtype=float),
        frame["human"].to_numpy(dtype=float),
        frame["generator"].to_numpy(dtype=object),
        judge_model,
    )


def bias_from_arrays(
    item: np.ndarray,
    run: np.ndarray,
    score: np.ndarray,
    human: np.ndarray,
    generator: np.ndarray,
    judge_model: str | None,
) -> Bias:
    """Bias from one row per (item, run): ``item`` codes numbered in item_id order, the
    run, score and human value (both on 0-5) and the item's generator (None if unknown)."""
    if len(item) == 0:
        return _no_item()
    runs, run_of = np.unique(run, return_inverse=True)
    run_of = run_of.ravel()
    n_runs = len(runs)
    diff = score - human
    over, under = diff >= GAP - EPS, diff <= -GAP + EPS
    known = pd.notna(generator)
    own = known & (generator == judge_model) if judge_model else np.zeros(len(item), bool)

    def per_run(mask: np.ndarray) -> np.ndarray:
        return np.bincount(run_of[mask], minlength=n_runs)

    def mean_over_runs(mask: np.ndarray) -> float:
        return float(np.mean(per_run(mask)))

    over_by_run = per_run(over)
    # per item: the score averaged over runs (pandas' group mean, as before), and the
    # item's human value, own flag and generator (the same on every row of the item)
    items, first = np.unique(item, return_index=True)
    item_score = pd.Series(score).groupby(item, sort=True).mean().to_numpy()
    item_human, item_own, item_gen = human[first], own[first], generator[first]
    gap = item_score - item_human
    item_over = gap >= GAP - EPS
    n_own = int(item_own.sum())
    n_other = len(items) - n_own
    table = None
    fisher_p, fisher_reason = None, None
    if not judge_model:
        fisher_reason = "the evaluator has no judge model to call its own"
    elif n_own == 0 or n_other == 0:
        fisher_reason = (
            "no item from the judge's own generator"
            if n_own == 0
            else "no item from another generator"
        )
    else:
        a = int(item_over[item_own].sum())
        c = int(item_over[~item_own].sum())
        table = ((a, n_own - a), (c, n_other - c))
        fisher_p = float(stats.fisher_exact(table, alternative="two-sided").pvalue)
    gen_key = np.where(pd.notna(item_gen), item_gen, "(unknown)").astype(str)
    gen_names, gen_of = np.unique(gen_key, return_inverse=True)
    by_gen = {}
    for k, gen in enumerate(gen_names):
        g = gen_of.ravel() == k
        g_gap = np.ascontiguousarray(gap[g])
        by_gen[str(gen)] = {
            "n": int(g.sum()),
            "over": int(item_over[g].sum()),
            "under": int((g_gap <= -GAP + EPS).sum()),
            "mean_gap": float(g_gap.sum() / float(len(g_gap))),
        }
    return Bias(
        over=mean_over_runs(over),
        under=mean_over_runs(under),
        over_own=mean_over_runs(over & own) if n_own else None,
        n_own=n_own,
        over_other=mean_over_runs(over & ~own) if n_other else None,
        n_other=n_other,
        fisher_p=fisher_p,
        n=len(items),
        n_runs=n_runs,
        under_own=mean_over_runs(under & own) if n_own else None,
        under_other=mean_over_runs(under & ~own) if n_other else None,
        over_by_run=tuple(int(v) for v in over_by_run),
        fisher_table=table,
        by_generator=by_gen,
        fisher_reason=fisher_reason,
    )
