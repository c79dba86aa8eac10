"""Every human-agreement statistic, declared once.

A :class:`Statistic` names its JSON key, its header, the field types it applies to, how
its value and CI are formatted, and the keys of its CI, its n and its reason. The JSON
document (:mod:`agreement.human`), the text, HTML and Markdown reports, the side panel
and the Agreement page all read this list, so a new statistic is one declaration here
(or one :func:`declare` call in a plugin or a test), with its ``compute`` function.

Statistics whose ``compute`` is None are the ones :func:`agreement.human.variable_agreement`
has always computed (alpha, Fleiss' kappa on the modal items, percent agreement, AC1,
Cohen's mean); their declarations drive the renderers only.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreement.bootstrap import draw_counts, percentile_ci
from agreement.ratings import Ratings
from agreement.results import Stat

# A pairwise choice is a nominal field (its choice); a multi-label set has exact-set
# alpha and percent agreement, and MASI alpha of its own (agreement/multilabel.py).
ALL = frozenset(
    {
        "binary",
        "categorical",
        "ordinal",
        "interval",
        "fact_labels",
        "derived",
        "pairwise",
        "multi_label",
    }
)
CATEGORICAL = frozenset({"binary", "categorical", "ordinal", "fact_labels", "pairwise"})
NOMINAL = frozenset({"binary", "categorical", "fact_labels", "pairwise"})
SCALED = frozenset({"ordinal", "interval"})
NUMERIC = frozenset({"ordinal", "interval", "derived"})
CONTINUOUS = frozenset({"interval", "derived"})
DASH = "—"
#: More distinct values than this make a q x q weight matrix too large to be worth it
#: (continuous scores); ICC and alpha cover those fields.
CHANCE_MAX_CATEGORIES = 200
FLEISS_NA = "Fleiss' kappa is for categorical ratings; see alpha"


@dataclass
class StatContext:
    """What a statistic is computed from: one variable's ratings and the bootstrap setup."""

    ratings: Ratings
    type: str
    n_resamples: int
    seed: int
    cache: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()`` computed once per variable (e.g. one ICC fit for six forms)."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


@dataclass(frozen=True)
class Statistic:
    """One statistic: where it sits in the JSON document and how it is shown."""

    key: str
    header: str
    name: str
    applies_to: frozenset[str]
    compute: Callable[[StatContext], Stat] | None = None
    digits: int = 3
    ci_key: str | None = None
    n_key: str | None = None
    per_level: bool = False
    summary: bool = False
    panel: bool = False
    not_applicable: str = ""
    method: str = ""
    short: str = ""

    def __post_init__(self) -> None:
        # a computed statistic keeps its CI and n beside it under derived keys
        if self.compute is not None and self.ci_key is None:
            object.__setattr__(self, "ci_key", f"{self.key}_ci")
        if self.compute is not None and self.n_key is None:
            object.__setattr__(self, "n_key", f"{self.key}_n_items")

    @property
    def label(self) -> str:
        """The short label of narrow places (the side panel); defaults to the header."""
        return self.short or self.header

    def applies(self, type_: str) -> bool:
        """True when the statistic is reported for fields of ``type_``."""
        return type_ in self.applies_to

    def reason_not_applicable(self) -> str:
        """The reason stored with a null for a field type the statistic does not cover."""
        kinds = ", ".join(sorted(self.applies_to))
        return self.not_applicable or f"{self.name} is reported for {kinds} fields"

    def format(self, value: float | None) -> str:
        """The value as shown in tables: fixed decimals, or a dash when undefined."""
        return DASH if value is None else f"{value:.{self.digits}f}"

    def format_ci(self, ci: Any) -> str:
        """A 95% interval with the same decimals as the estimate, or a dash."""
        if not ci:
            return DASH
        return f"[{ci[0]:.{self.digits}f}, {ci[1]:.{self.digits}f}]"


_LOCK = threading.RLock()
_DECLARED: list[Statistic] = []


def declare(stat: Statistic) -> Statistic:
    """Add a statistic to the list (its key must be new); returns it."""
    with _LOCK:
        if any(s.key == stat.key for s in _DECLARED):
            raise ValueError(f"statistic {stat.key!r} is declared twice")
        _DECLARED.append(stat)
    return stat


def undeclare(key: str) -> None:
    """Remove the statistic declared under ``key``."""
    with _LOCK:
        _DECLARED[:] = [s for s in _DECLARED if s.key != key]


@contextlib.contextmanager
def declared(stat: Statistic) -> Iterator[Statistic]:
    """The statistic declared for the duration of a ``with`` block (tests, plugins)."""
    declare(stat)
    try:
        yield stat
    finally:
        undeclare(stat.key)


def statistics() -> tuple[Statistic, ...]:
    """Every declared statistic, in display order."""
    with _LOCK:
        return tuple(_DECLARED)


@dataclass(frozen=True)
class Entry:
    """One statistic of one field, read back from the JSON document for display."""

    statistic: Statistic
    label: str
    level: str | None
    value: float | None
    ci: Any
    n: int | None
    n_units: int
    reason: str | None

    @property
    def text(self) -> str:
        """The formatted value."""
        return self.statistic.format(self.value)

    @property
    def ci_text(self) -> str:
        """The formatted interval."""
        return self.statistic.format_ci(self.ci)

    @property
    def n_text(self) -> str:
        """n of the field's units, e.g. ``14/20``."""
        return DASH if self.n is None else f"{self.n}/{self.n_units}"


def field_entries(
    f: dict[str, Any], keep: Callable[[Statistic], bool] | None = None
) -> list[Entry]:
    """The statistics that apply to field block ``f`` (a JSON field dict), in order."""
    out = []
    reasons = f.get("reasons", {})
    for stat in statistics():
        if not stat.applies(f["type"]) or (keep is not None and not keep(stat)):
            continue
        n = f.get(stat.n_key) if stat.n_key else None
        cis = f.get(stat.ci_key) if stat.ci_key else None
        if stat.per_level:
            for level, value in (f.get(stat.key) or {}).items():
                out.append(
                    Entry(
                        stat,
                        f"{stat.header} {level}",
                        level,
                        value,
                        (cis or {}).get(level),
                        n,
                        f["n_items"],
                        reasons.get(f"{stat.key}.{level}"),
                    )
                )
        else:
            value = f.get(stat.key)
            reason = reasons.get(stat.key) if value is None else None
            out.append(Entry(stat, stat.header, None, value, cis, n, f["n_items"], reason))
    return out


# -- compute functions of the declared statistics -------------------------------------


def _rated(r: Ratings) -> np.ndarray:
    order = r.unit_order()
    return r.counts[order][r.m[order] >= 1]


def _chance(ctx: StatContext, which: str, weights: str) -> Stat:
    """AC1/AC2 (``which="gwet"``) or missing-data Fleiss' kappa with CI and n."""
    from agreement.chance import (
        agreement_weights,
        fleiss_missing_from_counts,
        gwet_from_counts,
        undefined_reason,
    )

    r = ctx.ratings
    counts = _rated(r)
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
    ci, _ = percentile_ci(fn(counts, w_cat, draw_counts(len(counts), ctx.n_resamples, ctx.seed)))
    return Stat(stat.value, n, None, ci)


def _icc(suffix: str) -> Callable[[StatContext], Stat]:
    def compute(ctx: StatContext) -> Stat:
        from agreement.icc import icc_forms

        return ctx.once("icc", lambda: icc_forms(ctx.ratings))[suffix]

    return compute


def _pearson_mean(ctx: StatContext) -> Stat:
    from agreement.pairwise import mean_pairwise_pearson

    return mean_pairwise_pearson(ctx.ratings, ctx.n_resamples, ctx.seed)


def _declare_builtins() -> None:
    declare(
        Statistic(
            "krippendorff_alpha",
            "alpha",
            "Krippendorff's alpha",
            ALL,
            ci_key="krippendorff_alpha_ci",
            n_key="n_pairable",
            per_level=True,
            summary=True,
            panel=True,
            short="α",
        )
    )
    declare(
        Statistic(
            "fleiss_kappa",
            "Fleiss kappa (modal-count items)",
            "Fleiss' kappa over the items with the modal number of ratings",
            CATEGORICAL,
            ci_key="fleiss_kappa_ci",
            n_key="fleiss_n_items",
            summary=True,
            panel=True,
            short="Fleiss κ (modal)",
            not_applicable=FLEISS_NA,
        )
    )
    declare(
        Statistic(
            "fleiss_kappa_all_items",
            "Fleiss kappa (all items)",
            "Fleiss' kappa with missing ratings (Gwet's form)",
            CATEGORICAL,
            compute=lambda ctx: _chance(ctx, "fleiss", "identity"),
            summary=True,
            panel=True,
            short="Fleiss κ (all)",
            not_applicable=FLEISS_NA,
            method="Gwet's missing-data form of Fleiss' kappa (irrCAC's fleiss): p_a over the "
            "items with two or more ratings, category shares pi_k over every item with a "
            "rating, p_e = sum_k pi_k^2; no item is left out. n = items with a rating.",
        )
    )
    declare(
        Statistic(
            "percent_agreement",
            "% agree",
            "Percent agreement",
            ALL,
            n_key="percent_agreement_n_items",
            summary=True,
        )
    )
    declare(
        Statistic(
            "gwet_ac1",
            "AC1",
            "Gwet's AC1",
            NOMINAL,
            ci_key="gwet_ac1_ci",
            n_key="gwet_ac1_n_items",
            summary=True,
            not_applicable="Gwet's AC1 is reported for binary and categorical fields",
        )
    )
    for weights in ("linear", "quadratic"):
        declare(
            Statistic(
                f"gwet_ac2_{weights}",
                f"AC2 {weights}",
                f"Gwet's AC2 with {weights} weights",
                SCALED,
                compute=lambda ctx, w=weights: _chance(ctx, "gwet", w),
                summary=weights == "quadratic",
                not_applicable="Gwet's AC2 is reported for ordinal and interval fields",
                method=(
                    "AC1 with agreement weights over the category values (linear: "
                    "1 - |x_k - x_l| / range, quadratic: 1 - ((x_k - x_l) / range)^2), "
                    "p_e = sum(w) / (q (q - 1)) * sum_k pi_k (1 - pi_k), as irrCAC's gwet; "
                    "ordinal and interval fields; n = items with two or more ratings."
                    if weights == "linear"
                    else ""
                ),
            )
        )
    declare(
        Statistic(
            "cohen_kappa_mean",
            "Cohen mean",
            "Mean of Cohen's kappa over annotator pairs",
            CATEGORICAL,
        )
    )
    from agreement.icc import FORMS

    for suffix, name in FORMS:
        declare(
            Statistic(
                f"icc_{suffix}",
                name,
                f"Intraclass correlation {name}",
                NUMERIC,
                compute=_icc(suffix),
                summary=suffix == "a_1",
                not_applicable="the intraclass correlation is for numeric ratings",
                method=(
                    "pingouin's intraclass_corr (two-way ANOVA; Shrout & Fleiss 1979, McGraw "
                    "& Wong 1996): ICC(1,1), ICC(A,1) = ICC(2,1), ICC(C,1) = ICC(3,1) and "
                    "their k-rater forms with F-based 95% intervals; items some annotator "
                    "did not rate are dropped (listwise), n = complete items."
                    if suffix == "1_1"
                    else ""
                ),
            )
        )
    declare(
        Statistic(
            "pearson_pairs_mean",
            "Pearson mean",
            "Mean pairwise Pearson r among annotators",
            CONTINUOUS,
            compute=_pearson_mean,
            summary=True,
            not_applicable="mean pairwise Pearson is reported for continuous fields",
            method="Pearson's r of every annotator pair on the items both rated, averaged "
            "over the pairs where it is defined (Potato's figure); pairs and their n are in "
            "pearson_pairs / pearson_pairs_n; n = items with two or more ratings.",
        )
    )


_declare_builtins()
# the question types' statistics, one module each, declared after the built-ins
from agreement import question_stats  # noqa: E402, F401
