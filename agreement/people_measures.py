"""How the five classic statistics among people are computed, each from one variable.

Krippendorff's alpha by level, Fleiss' kappa on the modal-count items, percent
agreement, Gwet's AC1 (each with a percentile bootstrap CI over units, sorted by id,
where it has one) and the mean of Cohen's kappa over annotator pairs (the pairs, their
n and the weighted pairs travel with it). Their declarations are in
:mod:`agreement.statistics`; the engine calls these through the measure registry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agreement.alpha import alpha_from_coincidences, krippendorff_alpha, unit_coincidences
from agreement.bootstrap import draws, percentile_ci
from agreement.chance import agreement_weights, gwet_from_counts
from agreement.kappa import (
    cohen_pairs,
    fleiss,
    fleiss_coverage,
    fleiss_from_table,
    fleiss_items,
    pair_overlap,
)
from agreement.percent import gwet_ac1, percent_agreement
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.stat_context import StatContext

#: Largest number of distinct values for which alpha's bootstrap CI is computed.
CI_MAX_VALUES = 32
FLEISS_NA = "Fleiss' kappa is for categorical ratings; see alpha"
#: Above this many annotators the document summarises Cohen's pairs (a crowd of 283 has
#: 39,903 pairs, most sharing no item); ``StatContext.all_pairs`` asks for the list.
PAIR_LIST_MAX = 30
#: How many of the weakest pairs the summary names.
WEAKEST_PAIRS = 5
COHEN_WEIGHTS = ("linear", "quadratic")


def _with_ci(stat: Stat, ci: tuple[float, float] | None) -> Stat:
    return Stat(stat.value, stat.n, stat.reason, ci, extra=stat.extra, notes=stat.notes)


def alpha_by_level(ctx: StatContext) -> dict[str, Stat]:
    """Krippendorff's alpha at each of ``ctx.levels`` (n = pairable units), with CIs from
    one bootstrap of the unit coincidence matrices (V x V per unit) when the field has at
    most ``CI_MAX_VALUES`` distinct values."""
    r = ctx.ratings
    stats = {lv: krippendorff_alpha(r, lv) for lv in ctx.levels}
    order = r.unit_order()
    counts = r.counts[order][r.pairable[order]]
    used = counts.sum(axis=0) > 0
    counts = counts[:, used]
    if ctx.n_resamples <= 0 or counts.shape[1] > CI_MAX_VALUES or len(counts) < 2:
        return stats
    domain = r.numeric_domain()[used]
    o_units = unit_coincidences(counts)
    w = draws(len(counts), ctx.n_resamples, ctx.seed)
    o = w.product(o_units).reshape(len(w), counts.shape[1], counts.shape[1])
    for lv, s in stats.items():
        if s.value is not None:
            stats[lv] = _with_ci(s, percentile_ci(alpha_from_coincidences(o, domain, lv))[0])
    return stats


def fleiss_modal(ctx: StatContext) -> Stat:
    """Fleiss' kappa over the items with the modal number of ratings, with its CI and
    (in ``extra``) which items it uses; undefined for continuous ratings."""
    if not ctx.categorical:
        return Stat.undefined(FLEISS_NA)
    r = ctx.ratings
    stat = fleiss(r)
    note = {"fleiss_items_note": fleiss_coverage(r)}
    stat = Stat(stat.value, stat.n, stat.reason, extra=note)
    if stat.value is None or ctx.n_resamples <= 0 or stat.n < 2:
        return stat
    order = r.unit_order()
    table = r.counts[order][fleiss_items(r)[order]]
    w = draws(len(table), ctx.n_resamples, ctx.seed)
    return _with_ci(stat, percentile_ci(fleiss_from_table(table, w))[0])


def percent(ctx: StatContext) -> Stat:
    """Percent agreement (no CI)."""
    return percent_agreement(ctx.ratings)


def ac1(ctx: StatContext) -> Stat:
    """Gwet's AC1 with a CI from resampling the rated units."""
    r = ctx.ratings
    stat = gwet_ac1(r)
    if stat.value is None or ctx.n_resamples <= 0 or stat.n < 2:
        return stat
    order = r.unit_order()
    counts = r.counts[order][r.m[order] >= 1]
    w_cat = agreement_weights(np.arange(len(r.domain)), "identity")
    samples = gwet_from_counts(counts, w_cat, draws(len(counts), ctx.n_resamples, ctx.seed))
    return _with_ci(stat, percentile_ci(samples)[0])


def _pair_values(
    pairs: dict[str, Stat], key: str, notes: dict[str, str]
) -> dict[str, float | None]:
    for k, s in pairs.items():
        if s.value is None:
            notes[f"{key}.{k}"] = s.reason or "undefined"
    return {k: s.value for k, s in pairs.items()}


def cohen_mean(ctx: StatContext) -> Stat:
    """The mean of Cohen's kappa over the annotator pairs sharing at least
    ``ctx.min_pair_overlap`` items (n = pairs averaged). ``extra`` holds every pair's
    kappa and n, the pairs left out and, for ordinal fields, the weighted pairs."""
    r, minimum = ctx.ratings, ctx.min_pair_overlap
    if ctx.categorical and len(r.annotators) > PAIR_LIST_MAX and not ctx.all_pairs:
        return cohen_summary(ctx)
    pairs = cohen_pairs(r) if ctx.categorical else {}
    notes: dict[str, str] = {}
    few = sorted(k for k, s in pairs.items() if s.n < minimum)
    extra = {
        "cohen_kappa_pairs": _pair_values(pairs, "cohen_kappa_pairs", notes),
        "cohen_kappa_pairs_n": {k: s.n for k, s in pairs.items()},
        "cohen_kappa_min_overlap": minimum,
        "cohen_kappa_pairs_few": few,
    }
    if few:
        notes["cohen_kappa_pairs_few"] = (
            f"{len(few)} pair(s) share fewer than {minimum} items "
            f"(min_pair_overlap) and are left out of the pair mean: "
            + ", ".join(f"{k} (n={pairs[k].n})" for k in few)
        )
    if ctx.categorical and ctx.ordinal:
        for weights in COHEN_WEIGHTS:
            key = f"cohen_kappa_pairs_{weights}"
            extra[key] = _pair_values(cohen_pairs(r, weights), key, notes)
    left_out = set(few)
    kept = [s for k, s in pairs.items() if k not in left_out]
    defined = [s.value for s in kept if s.value is not None]
    if defined:
        return Stat(float(np.mean(defined)), len(defined), extra=extra, notes=notes)
    if not pairs:
        why = (
            "fewer than two annotators"
            if ctx.categorical
            else "Cohen's kappa is for categorical ratings; see alpha"
        )
    elif not kept:
        why = f"no annotator pair shares at least {minimum} items"
    else:
        why = "no pair has a defined kappa"
    return Stat(None, 0, why, extra=extra, notes=notes)


def cohen_summary(ctx: StatContext) -> Stat:
    """Cohen's pair mean over a crowd, summarised: kappa is computed only for the pairs
    sharing at least ``min_pair_overlap`` items (the pairs the mean uses, found from one
    overlap matrix), and ``extra`` holds their mean, spread, n and weakest pairs (as
    ``cohen_kappa_pair_stats`` and one sentence) instead of every pair."""
    r, minimum = ctx.ratings, ctx.min_pair_overlap
    shared = pair_overlap(r)
    first, second = np.triu_indices(len(r.annotators), 1)
    n = shared[first, second]
    keep = n >= minimum
    kept_pairs = list(zip(first[keep].tolist(), second[keep].tolist(), strict=True))
    pairs = cohen_pairs(r, pairs=kept_pairs, overlap=shared)
    defined = {k: s for k, s in pairs.items() if s.value is not None}
    values = np.array([s.value for s in defined.values()], dtype=float)
    weakest = sorted(defined.items(), key=lambda kv: (kv[1].value, kv[0]))[:WEAKEST_PAIRS]
    stats: dict[str, Any] = {
        "annotators": len(r.annotators),
        "pairs": len(n),
        "pairs_sharing_items": int((n > 0).sum()),
        "pairs_kept": len(pairs),
        "pairs_defined": len(defined),
        "mean": float(values.mean()) if len(values) else None,
        "sd": float(values.std(ddof=1)) if len(values) > 1 else None,
        "min": float(values.min()) if len(values) else None,
        "max": float(values.max()) if len(values) else None,
        "weakest": [{"pair": k, "kappa": s.value, "n": s.n} for k, s in weakest],
    }
    if ctx.ordinal:
        stats["weighted_mean"] = {
            w: _mean_defined(cohen_pairs(r, w, kept_pairs, shared)) for w in COHEN_WEIGHTS
        }
    few = stats["pairs_sharing_items"] - len(pairs)
    notes = {}
    if few:
        notes["cohen_kappa_pairs_few"] = (
            f"{few} pair(s) share fewer than {minimum} items (min_pair_overlap) and are "
            "left out of the pair mean"
        )
    extra = {
        "cohen_kappa_min_overlap": minimum,
        "cohen_kappa_pair_stats": stats,
        "cohen_kappa_pairs_summary": _pair_sentence(stats, minimum),
    }
    if len(values):
        return Stat(float(values.mean()), len(values), extra=extra, notes=notes)
    why = (
        f"no annotator pair shares at least {minimum} items"
        if not pairs
        else "no pair has a defined kappa"
    )
    return Stat(None, 0, why, extra=extra, notes=notes)


def _mean_defined(pairs: dict[str, Stat]) -> float | None:
    values = [s.value for s in pairs.values() if s.value is not None]
    return float(np.mean(values)) if values else None


def _pair_sentence(stats: dict[str, Any], minimum: int) -> str:
    """The pair summary in one line of bounded length."""
    text = (
        f"{stats['annotators']} annotators, {stats['pairs']:,} pairs; "
        f"{stats['pairs_sharing_items']:,} share items, {stats['pairs_kept']:,} share at "
        f"least {minimum} (min_pair_overlap)"
    )
    if stats["mean"] is not None:
        sd = "" if stats["sd"] is None else f", sd {stats['sd']:.3f}"
        text += (
            f"; kappa over {stats['pairs_defined']:,} pairs: mean {stats['mean']:.3f}{sd}, "
            f"range {stats['min']:.3f} to {stats['max']:.3f}; weakest: "
            + ", ".join(f"{w['pair']} {w['kappa']:.2f} (n={w['n']})" for w in stats["weakest"])
        )
    return text + ". Every pair: --pairs."


#: More distinct values than this make a q x q weight matrix too large to be worth it
#: (continuous scores); ICC and alpha cover those fields.
CHANCE_MAX_CATEGORIES = 200


def rated_counts(r: Ratings) -> np.ndarray:
    """The count rows of the items with a rating, in unit order."""
    order = r.unit_order()
    return r.counts[order][r.m[order] >= 1]


def chance_corrected(ctx: StatContext, which: str, weights: str) -> Stat:
    """AC1/AC2 (``which="gwet"``) or missing-data Fleiss' kappa with CI and n."""
    from agreement.chance import (
        WEIGHTS,
        agreement_weights,
        fleiss_missing_from_counts,
        fleiss_missing_from_parts,
        gwet_from_counts,
        gwet_from_parts,
        parts_many,
        undefined_reason,
    )

    r = ctx.ratings
    counts = rated_counts(r)
    fn = gwet_from_counts if which == "gwet" else fleiss_missing_from_counts
    n = len(counts) if which == "fleiss" else int(r.pairable.sum())
    reason = undefined_reason(counts, len(r.annotators), len(r.domain))
    if reason:
        return Stat.undefined(reason, n)
    if len(r.domain) > CHANCE_MAX_CATEGORIES:
        return Stat.undefined(
            f"{len(r.domain)} distinct values: chance-corrected coefficients are computed "
            f"for up to {CHANCE_MAX_CATEGORIES} categories (see ICC and alpha)",
            n,
        )
    w_cat = agreement_weights(r.numeric_domain(), weights)
    stat = Stat.of(float(fn(counts, w_cat)[0]), n, "chance agreement is 1: no variation")
    if stat.value is None or ctx.n_resamples <= 0 or len(counts) < 2:
        return stat
    # every weighting's resampled sums in one pass over the draws, shared by the
    # coefficients of this variable (Fleiss all items, AC2 linear and quadratic)
    domain = r.numeric_domain()
    parts = ctx.once(
        "chance_parts",
        lambda: dict(
            zip(
                WEIGHTS,
                parts_many(
                    counts,
                    [agreement_weights(domain, w) for w in WEIGHTS],
                    draws(len(counts), ctx.n_resamples, ctx.seed),
                ),
                strict=True,
            )
        ),
    )
    from_parts = gwet_from_parts if which == "gwet" else fleiss_missing_from_parts
    ci, _ = percentile_ci(from_parts(*parts[weights], w_cat))
    return Stat(stat.value, n, None, ci)
