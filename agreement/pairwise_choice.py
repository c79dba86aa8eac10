"""Agreement on pairwise questions and the ranking of the compared systems.

The ratings hold each answer's choice (an output field or ``tie``), so alpha, Fleiss,
AC1 and percent agreement apply as to any nominal field. Declared here:
- agreement with and without ties, as MT-Bench reports it: over every pair of annotators
  who answered the same item, the share choosing the same; without ties, only the pairs
  where neither chose a tie;
- a Bradley-Terry ranking of the systems behind the outputs (each answer's winner beats
  every other output; a tie is half a win each), with percentile bootstrap intervals over
  items. The headline is P(first beats second) of the fitted top two.
"""

from __future__ import annotations

import numpy as np

from agreement.bootstrap import draw_counts, percentile_ci
from agreement.bradley_terry import fit, tallies, why_no_fit
from agreement.ratings import MISSING, Ratings
from agreement.results import Stat
from agreement.statistics import StatContext, Statistic, declare
from agreement.unit_context import context_of

PAIRWISE = frozenset({"pairwise"})
TIE = "tie"


def _pair_agreement(r: Ratings, ties: bool) -> Stat:
    tie = r.domain.index(TIE) if TIE in r.domain else -1
    same = total = 0
    for row in r.codes:
        given = row[row != MISSING]
        if not ties:
            given = given[given != tie]
        k = len(given)
        total += k * (k - 1) // 2
        counts = np.bincount(given, minlength=len(r.domain)) if k else np.zeros(0, int)
        same += int((counts * (counts - 1) // 2).sum())
    if total == 0:
        reason = "no two annotators answered the same item"
        return Stat.undefined(reason + ("" if ties else " without a tie"))
    return Stat(same / total, total)


def _outcomes(r: Ratings) -> tuple[list[str], list[list[tuple[int, int, float]]]]:
    """Systems and, per unit, its (i, j, score of i) outcomes."""
    ctx = context_of(r)
    systems_of = ctx.get("systems") or {}
    outputs = list(ctx.get("outputs") or [v for v in r.domain if v != TIE])
    names: dict[str, int] = {}
    per_unit: list[list[tuple[int, int, float]]] = []
    for u, row in zip(r.units, r.codes, strict=True):
        named = systems_of.get(u) or {o: o for o in outputs}
        idx = [names.setdefault(str(named[o]), len(names)) for o in outputs]
        out = []
        for code in row[row != MISSING]:
            choice = r.domain[code]
            for a in range(len(outputs)):
                for b in range(a + 1, len(outputs)):
                    if idx[a] == idx[b]:
                        continue  # one system against itself tells nothing
                    score = 0.5 if choice == TIE else float(choice == outputs[a])
                    if choice not in (TIE, outputs[a], outputs[b]):
                        continue  # a third output won: no verdict between these two
                    out.append((idx[a], idx[b], score))
        per_unit.append(out)
    return list(names), per_unit


def bradley_terry(ctx: StatContext) -> Stat:
    """The ranking (in ``bradley_terry`` of the JSON) and P(top beats second)."""
    systems, per_unit = _outcomes(ctx.ratings)
    return ranked_systems(systems, per_unit, ctx.n_resamples, ctx.seed, "bradley_terry")


def ranked_systems(
    systems: list[str],
    per_unit: list[list[tuple[int, int, float]]],
    n_resamples: int,
    seed: int,
    key: str,
) -> Stat:
    """Bradley-Terry strengths of ``systems`` from each unit's (i, j, score of i)
    outcomes, with bootstrap intervals over units, in ``extra[key]`` (best first); the
    value is P(top beats second), n the comparisons."""
    flat = [o for unit in per_unit for o in unit]
    wins, games = tallies(flat, len(systems))
    extra: dict = {
        key: [
            {"system": s, "wins": float(wins[i]), "comparisons": float(games[i].sum())}
            for i, s in enumerate(systems)
        ]
    }
    reason = why_no_fit(wins, games)
    if reason:
        return Stat(None, len(flat), reason, extra=extra)
    theta = fit(wins, games)
    cis = _bootstrap(per_unit, len(systems), n_resamples, seed)
    for i, row in enumerate(extra[key]):
        row["theta"] = float(theta[i])
        row["ci"] = cis[i]
    extra[key].sort(key=lambda row: -row["theta"])
    top, second = extra[key][:2]
    value = 1 / (1 + np.exp(second["theta"] - top["theta"]))
    return Stat(float(value), len(flat), extra=extra)


def _bootstrap(
    per_unit: list[list[tuple[int, int, float]]], k: int, n_resamples: int, seed: int
) -> list[list[float] | None]:
    if n_resamples <= 0 or len(per_unit) < 2:
        return [None] * k
    flat = [o for unit in per_unit for o in unit]
    owner = np.repeat(np.arange(len(per_unit)), [len(u) for u in per_unit])
    samples = np.full((n_resamples, k), np.nan)
    for b, draw in enumerate(draw_counts(len(per_unit), n_resamples, seed)):
        wins, games = tallies(flat, k, draw[owner])
        if why_no_fit(wins, games) is None:
            samples[b] = fit(wins, games)
    out = []
    for i in range(k):
        ci, _ = percentile_ci(samples[:, i])
        out.append(list(ci) if ci else None)
    return out


AGREE_TIES = declare(
    Statistic(
        "pairwise_agree_with_ties",
        "agree w/ tie",
        "Agreement among annotator pairs, ties counted (MT-Bench)",
        PAIRWISE,
        compute=lambda ctx: _pair_agreement(ctx.ratings, True),
        n_key="pairwise_agree_with_ties_n_pairs",
        summary=True,
        panel=True,
        method="over every pair of annotators answering one item: the share choosing the "
        "same output (or both a tie), as MT-Bench's agreement with ties; n = pairs.",
    )
)
AGREE_NO_TIES = declare(
    Statistic(
        "pairwise_agree_without_ties",
        "agree w/o tie",
        "Agreement among annotator pairs, pairs with a tie left out (MT-Bench)",
        PAIRWISE,
        compute=lambda ctx: _pair_agreement(ctx.ratings, False),
        n_key="pairwise_agree_without_ties_n_pairs",
        summary=True,
        method="as with ties, over the pairs where neither annotator chose a tie.",
    )
)
BRADLEY_TERRY = declare(
    Statistic(
        "bradley_terry_top",
        "BT P(top > 2nd)",
        "Bradley-Terry ranking of the compared systems",
        PAIRWISE,
        compute=bradley_terry,
        n_key="bradley_terry_n_comparisons",
        summary=True,
        method="Bradley-Terry strengths (Hunter's MM fit; a tie is half a win each) of the "
        "systems behind the outputs, log-strengths centred on 0 with 95% percentile "
        "bootstrap intervals over items, in bradley_terry; the headline is the fitted "
        "probability that the top system beats the second; n = comparisons.",
    )
)
