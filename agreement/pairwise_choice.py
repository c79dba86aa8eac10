"""Agreement on pairwise questions and the ranking of the compared systems.

The ratings hold each answer's choice (an output field or ``tie``), so alpha, Fleiss,
AC1 and percent agreement apply as to any nominal field. Declared here:
- agreement with and without ties, as MT-Bench reports it: over every pair of annotators
  who answered the same item, the share choosing the same; without ties, only the pairs
  where neither chose a tie;
- a Bradley-Terry ranking of the systems behind the outputs (each answer's winner beats
  every other output; a tie is half a win each), with percentile bootstrap intervals over
  items. The headline is P(first beats second) of the fitted top two. The ranking
  itself is three per-system measures (one row per system, ordered by strength, with its
  interval and n = the system's comparisons): the log-strengths, the same under a prior
  when no maximum-likelihood fit exists (:mod:`agreement.bradley_terry` says why, naming
  the groups; a separate measure, so no renderer can show them as the usual fit), and
  the win rates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from agreement.bootstrap import draws, percentile_ci
from agreement.bradley_terry import PRIOR_NAME, fit, fit_prior, tallies, why_no_fit
from agreement.measures import Measure, MeasureView
from agreement.ratings import MISSING, Ratings
from agreement.results import Stat
from agreement.statistics import StatContext, declare
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


def _ranking(ctx: StatContext) -> dict:
    """The systems, their scores against each other, the fitted strengths (maximum
    likelihood, else under the prior, else none) and bootstrap intervals, computed once
    per variable for the three measures below."""
    systems, per_unit = _outcomes(ctx.ratings)
    k = len(systems)
    flat = [o for unit in per_unit for o in unit]
    beats = tallies(flat, k)
    games = beats + beats.T
    reason = why_no_fit(beats, systems)
    prior = reason is not None and k >= 2 and bool((games.sum(axis=1) > 0).all())
    theta = None
    if reason is None:
        theta = fit(beats.sum(axis=1), games)
    elif prior:
        theta = fit_prior(beats)
    theta_ci, rate_ci = (
        _bootstrap(per_unit, k, ctx.n_resamples, ctx.seed, prior)
        if theta is not None
        else ([None] * k, [None] * k)
    )
    played = games.sum(axis=1)
    # strongest first; equal strengths (to 12 digits) in name order
    order = (
        range(k)
        if theta is None
        else sorted(range(k), key=lambda i: (-round(theta[i], 12), systems[i]))
    )
    return {
        "systems": systems,
        "n": len(flat),
        "beats": beats,
        "played": played,
        "reason": reason,
        "prior": prior,
        "theta": theta,
        "theta_ci": theta_ci,
        "rate": np.divide(beats.sum(axis=1), played, out=np.full(k, np.nan), where=played > 0),
        "rate_ci": rate_ci,
        "order": list(order),
    }


def bradley_terry(ctx: StatContext) -> Stat:
    """The ranking (in ``bradley_terry`` of the JSON) and P(top beats second)."""
    r = ctx.once("bradley_terry", lambda: _ranking(ctx))
    rows = [
        {"system": s, "wins": float(r["beats"][i].sum()), "comparisons": float(r["played"][i])}
        for i, s in enumerate(r["systems"])
    ]
    extra: dict = {"bradley_terry": rows}
    if r["reason"]:
        why = r["reason"]
        if r["prior"]:
            why += f"; the strengths shown are under a {PRIOR_NAME}"
        return Stat(None, r["n"], why, extra=extra)
    for i, row in enumerate(rows):
        row["theta"] = float(r["theta"][i])
        row["ci"] = r["theta_ci"][i]
    extra["bradley_terry"] = [rows[i] for i in r["order"]]
    top, second = extra["bradley_terry"][:2]
    value = 1 / (1 + np.exp(second["theta"] - top["theta"]))
    return Stat(float(value), r["n"], extra=extra)


def ranked_systems(
    systems: list[str],
    per_unit: list[list[tuple[int, int, float]]],
    n_resamples: int,
    seed: int,
    key: str,
) -> Stat:
    """Bradley-Terry strengths of ``systems`` from each unit's (i, j, score of i)
    outcomes, with bootstrap intervals over units, in ``extra[key]`` (best first); the
    value is P(top beats second), n the comparisons. No value, with the reason naming the
    groups, when no maximum-likelihood fit exists (:func:`why_no_fit`)."""
    flat = [o for unit in per_unit for o in unit]
    k = len(systems)
    beats = tallies(flat, k)
    games = beats + beats.T
    extra: dict = {
        key: [
            {"system": s, "wins": float(beats[i].sum()), "comparisons": float(games[i].sum())}
            for i, s in enumerate(systems)
        ]
    }
    reason = why_no_fit(beats, systems)
    if reason:
        return Stat(None, len(flat), reason, extra=extra)
    theta = fit(beats.sum(axis=1), games)
    cis, _ = _bootstrap(per_unit, k, n_resamples, seed, False)
    for i, row in enumerate(extra[key]):
        row["theta"] = float(theta[i])
        row["ci"] = cis[i]
    extra[key].sort(key=lambda row: -row["theta"])
    top, second = extra[key][:2]
    value = 1 / (1 + np.exp(second["theta"] - top["theta"]))
    return Stat(float(value), len(flat), extra=extra)


def _per_system(m: Measure, r: dict, values: np.ndarray, cis: list) -> dict[str, Stat]:
    """One ``Stat`` per system in ranking order; the JSON entries ride on the first."""
    names = [r["systems"][i] for i in r["order"]]
    n = {names[t]: int(round(float(r["played"][i]))) for t, i in enumerate(r["order"])}
    out = {
        names[t]: Stat(float(values[i]), n[names[t]], ci=tuple(cis[i]) if cis[i] else None)
        for t, i in enumerate(r["order"])
    }
    first = out[names[0]]
    extra = {
        m.key: {s: st.value for s, st in out.items()},
        str(m.ci_key): {s: list(st.ci) if st.ci else None for s, st in out.items()},
        str(m.n_key): n,
    }
    out[names[0]] = Stat(first.value, first.n, None, first.ci, extra=extra)
    return out


def _strengths(prior: bool, m: Callable[[], Measure]) -> Callable[[StatContext], Any]:
    def compute(ctx: StatContext) -> dict[str, Stat] | Stat:
        if ctx.type not in PAIRWISE:
            return Stat.undefined(m().reason_not_applicable())
        r = ctx.once("bradley_terry", lambda: _ranking(ctx))
        if r["theta"] is None:
            return Stat.undefined(r["reason"], r["n"])
        if r["prior"] != prior:
            why = "no finite maximum-likelihood fit" if r["prior"] else "a finite fit exists"
            return Stat.undefined(
                f"{why}: see {STRENGTH_PRIOR.view.header if r['prior'] else STRENGTH.view.header}",
                r["n"],
            )
        return _per_system(m(), r, r["theta"], r["theta_ci"])

    return compute


def _win_rates(ctx: StatContext) -> dict[str, Stat] | Stat:
    if ctx.type not in PAIRWISE:
        return Stat.undefined(WIN_RATE.reason_not_applicable())
    r = ctx.once("bradley_terry", lambda: _ranking(ctx))
    if not r["systems"] or not (r["played"] > 0).all():
        return Stat.undefined(r["reason"] or "no comparisons", r["n"])
    return _per_system(WIN_RATE, r, r["rate"], r["rate_ci"])


def _resample_rows(n: int, n_resamples: int, seed: int) -> Iterator[tuple[int, np.ndarray]]:
    """(b, resample b's (n,) draw counts), a chunk of resamples at a time."""
    for part, w_t in draws(n, n_resamples, seed).chunks_t():
        for j in range(w_t.shape[1]):
            yield part.start + j, w_t[:, j]


def _bootstrap(
    per_unit: list[list[tuple[int, int, float]]], k: int, n_resamples: int, seed: int, prior: bool
) -> tuple[list[list[float] | None], list[list[float] | None]]:
    """Percentile intervals over items of the strengths (the maximum-likelihood fit,
    draws without one left out; or the fit under the prior) and of the win rates."""
    if n_resamples <= 0 or len(per_unit) < 2:
        return [None] * k, [None] * k
    flat = [o for unit in per_unit for o in unit]
    owner = np.repeat(np.arange(len(per_unit)), [len(u) for u in per_unit])
    theta = np.full((n_resamples, k), np.nan)
    rate = np.full((n_resamples, k), np.nan)
    for b, draw in _resample_rows(len(per_unit), n_resamples, seed):
        beats = tallies(flat, k, draw[owner])
        games = beats + beats.T
        played = games.sum(axis=1)
        rate[b] = np.divide(beats.sum(axis=1), played, out=np.full(k, np.nan), where=played > 0)
        if prior:
            if (played > 0).all():
                theta[b] = fit_prior(beats)
        elif why_no_fit(beats) is None:
            theta[b] = fit(beats.sum(axis=1), games)

    def cis(samples: np.ndarray) -> list[list[float] | None]:
        out = []
        for i in range(k):
            ci, _ = percentile_ci(samples[:, i])
            out.append(list(ci) if ci else None)
        return out

    return cis(theta), cis(rate)


AGREE_TIES = declare(
    Measure(
        "pairwise_agree_with_ties",
        MeasureView(
            "agree w/ tie",
            "Agreement among annotator pairs, ties counted (MT-Bench)",
            summary=True,
            panel=True,
            method="over every pair of annotators answering one item: the share choosing the "
            "same output (or both a tie), as MT-Bench's agreement with ties; n = pairs.",
        ),
        PAIRWISE,
        compute=lambda ctx: _pair_agreement(ctx.ratings, True),
        n_key="pairwise_agree_with_ties_n_pairs",
    )
)
AGREE_NO_TIES = declare(
    Measure(
        "pairwise_agree_without_ties",
        MeasureView(
            "agree w/o tie",
            "Agreement among annotator pairs, pairs with a tie left out (MT-Bench)",
            summary=True,
            method="as with ties, over the pairs where neither annotator chose a tie.",
        ),
        PAIRWISE,
        compute=lambda ctx: _pair_agreement(ctx.ratings, False),
        n_key="pairwise_agree_without_ties_n_pairs",
    )
)
BRADLEY_TERRY = declare(
    Measure(
        "bradley_terry_top",
        MeasureView(
            "BT P(top > 2nd)",
            "Bradley-Terry ranking of the compared systems",
            summary=True,
            method="Bradley-Terry strengths (Hunter's MM fit; a tie is half a win each) of the "
            "systems behind the outputs, log-strengths centred on 0 with 95% percentile "
            "bootstrap intervals over items, in bradley_terry; the headline is the fitted "
            "probability that the top system beats the second; n = comparisons.",
        ),
        PAIRWISE,
        compute=bradley_terry,
        n_key="bradley_terry_n_comparisons",
    )
)


def _ranked(key: str, header: str, name: str, compute: Callable, method: str) -> Measure:
    """Declare a per-system measure. It writes its JSON entries itself, only when it has
    figures (other blocks stay as they were); where it has none it is one undefined row
    with its reason, in the rows and the bundle only."""
    return declare(
        Measure(
            key,
            MeasureView(
                header,
                name,
                method=method,
                ranking=True,
            ),
            PAIRWISE,
            compute=compute,
            per_level=True,
            n_key=f"{key}_n",
            layout=(),
            reason_layout=("-",),
            always=True,
        )
    )


STRENGTH = _ranked(
    "bradley_terry_strength",
    "BT strength",
    "Bradley-Terry log-strength of each system",
    _strengths(False, lambda: STRENGTH),
    "per system, ordered: the maximum-likelihood log-strength (centred on 0; P(i beats j) = "
    "1 / (1 + exp(theta_j - theta_i))) with its 95% percentile bootstrap interval over "
    "items; n = the system's comparisons.",
)
STRENGTH_PRIOR = _ranked(
    "bradley_terry_strength_prior",
    "BT strength (prior)",
    "Bradley-Terry log-strength of each system under a prior (no finite fit)",
    _strengths(True, lambda: STRENGTH_PRIOR),
    "only when no finite maximum-likelihood strengths exist (the reason names the groups "
    f"that never lost): the log-strengths under a {PRIOR_NAME}, with bootstrap intervals "
    "of the same fit; a regularised figure, not the usual ranking.",
)
WIN_RATE = _ranked(
    "bradley_terry_win_rate",
    "BT win rate",
    "Share of its comparisons each system won (a tie half)",
    _win_rates,
    "per system, in the order of the strengths: wins (a tie half a win) over its "
    "comparisons, with a 95% percentile bootstrap interval over items.",
)
