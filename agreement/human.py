"""Agreement among humans on one variable: alpha, Fleiss, Cohen pairs, percent, AC1."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreement.alpha import alpha_from_coincidences, krippendorff_alpha, unit_coincidences
from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, draw_counts, percentile_ci
from agreement.chance import agreement_weights, gwet_from_counts
from agreement.kappa import cohen_pairs, fleiss, fleiss_coverage, fleiss_from_table, fleiss_items
from agreement.percent import gwet_ac1, percent_agreement
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.statistics import StatContext, Statistic, statistics

#: Largest number of distinct values for which alpha's bootstrap CI is computed.
CI_MAX_VALUES = 32
#: Default of the project setting ``min_pair_overlap``: a Cohen pair sharing fewer items
#: is shown greyed out and left out of the pair mean (one odd item swings it to +-1).
MIN_PAIR_OVERLAP = 5


@dataclass
class VariableAgreement:
    """Agreement among annotators on one variable (a human field or a derived score)."""

    name: str
    type: str
    level: str
    levels: tuple[str, ...]
    ratings: Ratings
    unit: str = "item"
    alpha: dict[str, Stat] = field(default_factory=dict)
    fleiss: Stat | None = None
    percent: Stat | None = None
    ac1: Stat | None = None
    cohen: dict[str, Stat] = field(default_factory=dict)
    cohen_weighted: dict[str, dict[str, Stat]] = field(default_factory=dict)
    declared: dict[str, Stat] = field(default_factory=dict)
    #: (CI key, n key) of each declared statistic, kept with the results (not the
    #: declaration: it holds a function, and documents are cached by pickling)
    declared_keys: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    min_pair_overlap: int = MIN_PAIR_OVERLAP
    categorical: bool = True

    @property
    def n_items(self) -> int:
        """Units with at least one rating."""
        return int((self.ratings.m > 0).sum())

    def _no_pair_mean_reason(self, kept: list[Stat]) -> str:
        """Why the Cohen pair mean is undefined (``kept``: pairs with enough overlap)."""
        if not self.cohen:
            return (
                "fewer than two annotators"
                if self.categorical
                else "Cohen's kappa is for categorical ratings; see alpha"
            )
        if not kept:
            return f"no annotator pair shares at least {self.min_pair_overlap} items"
        return "no pair has a defined kappa"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the issue's shape plus n, CI and reason keys)."""
        reasons: dict[str, str] = {}

        def val(stat: Stat | None, key: str, default_reason: str) -> float | None:
            if stat is None:
                reasons[key] = default_reason
                return None
            if stat.value is None:
                reasons[key] = stat.reason or "undefined"
            return stat.value

        r = self.ratings
        out: dict[str, Any] = {
            "type": self.type,
            "level": self.level,
            "unit": self.unit,
            "n_items": self.n_items,
            "n_annotators": len(r.annotators),
            "n_ratings": r.n_ratings,
            "n_pairable": int(r.pairable.sum()),
            "krippendorff_alpha": {
                lv: val(self.alpha.get(lv), f"krippendorff_alpha.{lv}", "not computed")
                for lv in self.levels
            },
            "krippendorff_alpha_ci": {
                lv: list(s.ci) if s.ci else None for lv, s in self.alpha.items()
            },
        }
        out["fleiss_kappa"] = val(self.fleiss, "fleiss_kappa", "not computed")
        out["fleiss_n_items"] = self.fleiss.n if self.fleiss else 0
        out["fleiss_kappa_ci"] = list(self.fleiss.ci) if self.fleiss and self.fleiss.ci else None
        if self.fleiss is not None:
            out["fleiss_items_note"] = fleiss_coverage(r)
        out["percent_agreement"] = val(self.percent, "percent_agreement", "not computed")
        out["percent_agreement_n_items"] = self.percent.n if self.percent else 0
        out["gwet_ac1"] = val(
            self.ac1, "gwet_ac1", "Gwet's AC1 is reported for binary and categorical fields"
        )
        out["gwet_ac1_ci"] = list(self.ac1.ci) if self.ac1 and self.ac1.ci else None
        out["gwet_ac1_n_items"] = self.ac1.n if self.ac1 else 0
        out["cohen_kappa_pairs"] = {
            k: val(s, f"cohen_kappa_pairs.{k}", "") for k, s in self.cohen.items()
        }
        out["cohen_kappa_pairs_n"] = {k: s.n for k, s in self.cohen.items()}
        out["cohen_kappa_min_overlap"] = self.min_pair_overlap
        few = sorted(k for k, s in self.cohen.items() if s.n < self.min_pair_overlap)
        out["cohen_kappa_pairs_few"] = few
        kept = [s for k, s in self.cohen.items() if k not in few]
        defined = [s.value for s in kept if s.value is not None]
        out["cohen_kappa_mean"] = float(np.mean(defined)) if defined else None
        if not defined:
            reasons["cohen_kappa_mean"] = self._no_pair_mean_reason(kept)
        if few:
            reasons["cohen_kappa_pairs_few"] = (
                f"{len(few)} pair(s) share fewer than {self.min_pair_overlap} items "
                f"(min_pair_overlap) and are left out of the pair mean: "
                + ", ".join(f"{k} (n={self.cohen[k].n})" for k in few)
            )
        for weights, pairs in self.cohen_weighted.items():
            out[f"cohen_kappa_pairs_{weights}"] = {
                k: val(s, f"cohen_kappa_pairs_{weights}.{k}", "") for k, s in pairs.items()
            }
        for key, stat in self.declared.items():
            out[key] = val(stat, key, "not computed")
            ci_key, n_key = self.declared_keys.get(key, (None, None))
            if ci_key:
                out[ci_key] = list(stat.ci) if stat.ci else None
            if n_key:
                out[n_key] = stat.n
            out.update(stat.extra or {})
        if self.notes:
            reasons.update(self.notes)
        out["reasons"] = reasons
        return out


def _alpha_cis(
    r: Ratings, levels: tuple[str, ...], stats: dict[str, Stat], n_resamples: int, seed: int
) -> dict[str, Stat]:
    """Attach percentile bootstrap CIs (resampling pairable units, sorted by id) to
    defined alphas."""
    order = r.unit_order()
    counts = r.counts[order][r.pairable[order]]
    used = counts.sum(axis=0) > 0
    counts = counts[:, used]
    if n_resamples <= 0 or counts.shape[1] > CI_MAX_VALUES or len(counts) < 2:
        return stats
    domain = r.numeric_domain()[used]
    o_units = unit_coincidences(counts)
    w = draw_counts(len(counts), n_resamples, seed)
    o = (w @ o_units).reshape(len(w), counts.shape[1], counts.shape[1])
    out = dict(stats)
    for lv in levels:
        s = stats[lv]
        if s.value is None:
            continue
        ci, _ = percentile_ci(alpha_from_coincidences(o, domain, lv))
        out[lv] = Stat(s.value, s.n, s.reason, ci)
    return out


def _fleiss_ci(r: Ratings, stat: Stat, n_resamples: int, seed: int) -> Stat:
    if stat.value is None or n_resamples <= 0 or stat.n < 2:
        return stat
    order = r.unit_order()
    table = r.counts[order][fleiss_items(r)[order]]
    w = draw_counts(len(table), n_resamples, seed)
    ci, _ = percentile_ci(fleiss_from_table(table, w))
    return Stat(stat.value, stat.n, stat.reason, ci)


def _ac1_ci(r: Ratings, stat: Stat, n_resamples: int, seed: int) -> Stat:
    if stat.value is None or n_resamples <= 0 or stat.n < 2:
        return stat
    order = r.unit_order()
    counts = r.counts[order][r.m[order] >= 1]
    w_cat = agreement_weights(np.arange(len(r.domain)), "identity")
    ci, _ = percentile_ci(
        gwet_from_counts(counts, w_cat, draw_counts(len(counts), n_resamples, seed))
    )
    return Stat(stat.value, stat.n, stat.reason, ci)


def variable_agreement(
    name: str,
    ratings: Ratings,
    *,
    type_: str,
    levels: tuple[str, ...],
    level: str,
    categorical: bool,
    ordinal: bool = False,
    ac1: bool = False,
    unit: str = "item",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    min_pair_overlap: int = MIN_PAIR_OVERLAP,
    keep: Callable[[Statistic], bool] | None = None,
) -> VariableAgreement:
    """Every human-agreement statistic that fits the variable.

    ``categorical``: Fleiss, Cohen and percent agreement make sense (not for continuous
    scores); ``ordinal``: add linear and quadratic weighted Cohen; ``ac1``: Gwet's AC1;
    Cohen pairs sharing fewer than ``min_pair_overlap`` items stay out of the pair mean.
    ``keep`` limits the declared statistics computed (the side panel needs few).
    """
    out = VariableAgreement(
        name,
        type_,
        level,
        levels,
        ratings,
        unit=unit,
        min_pair_overlap=min_pair_overlap,
        categorical=categorical,
    )
    alphas = {lv: krippendorff_alpha(ratings, lv) for lv in levels}
    out.alpha = _alpha_cis(ratings, levels, alphas, n_resamples, seed)
    out.percent = percent_agreement(ratings)
    if categorical:
        out.fleiss = _fleiss_ci(ratings, fleiss(ratings), n_resamples, seed)
        out.cohen = cohen_pairs(ratings)
        if ordinal:
            out.cohen_weighted = {w: cohen_pairs(ratings, w) for w in ("linear", "quadratic")}
    else:
        out.notes["fleiss_kappa"] = "Fleiss' kappa is for categorical ratings; see alpha"
    if ac1:
        out.ac1 = _ac1_ci(ratings, gwet_ac1(ratings), n_resamples, seed)
    ctx = StatContext(ratings, type_, n_resamples, seed)
    for stat in statistics():
        if stat.compute is None or (keep is not None and not keep(stat)):
            continue
        if stat.applies(type_):
            out.declared[stat.key] = stat.compute(ctx)
        else:
            out.declared[stat.key] = Stat.undefined(stat.reason_not_applicable())
        out.declared_keys[stat.key] = (stat.ci_key, stat.n_key)
    return out
