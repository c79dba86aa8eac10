"""Every human-agreement statistic, declared once (the among-people measures).

A :class:`Statistic` (a :class:`~agreement.measures.Measure` of the among-people
section, in the one measure registry) names its JSON key, its header, the field types it
applies to, how its value and CI are formatted, the keys of its CI and n, and its
``compute`` function. The engine (:func:`agreement.human.variable_agreement`) computes
every declared statistic through the registry; the JSON document, the text, HTML and
Markdown reports, the side panel and the Agreement page all read this list, so a new
statistic is one declaration here (or one :func:`declare` call in a plugin or a test).

The five classic statistics (alpha by level, Fleiss' kappa on the modal items, percent
agreement, AC1, Cohen's pair mean) are computed in :mod:`agreement.people_measures`;
their ``layout`` and ``json_rank`` keep the JSON keys where the document always had them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from agreement import people_measures as classic
from agreement.bootstrap import draw_counts, percentile_ci
from agreement.chance_caveat import with_caveat
from agreement.measures import (
    AMONG_PEOPLE,
    NOTE,
    Detail,
    DetailEntry,
    Entry,
    Measure,
    measures,
    read,
    read_details,
    register_measure,
    unregister_measure,
)
from agreement.measures import (
    DASH as DASH,  # re-exported: the views import the dash from here
)
from agreement.people_measures import FLEISS_NA
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.stat_context import StatContext
from kinds import Level
from kinds.question_type import QuestionType

# The field types by name, for statistics declared that way (a plugin's, a test's toy):
# a pairwise choice is a nominal field (its choice); a multi-label set has exact-set
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
#: Derived scores (a kind's formula over one annotator's labels) are no question type:
#: the classic statistics name them; every question type is matched by its properties.
DERIVED = frozenset({"derived"})


def alpha_fits(t: QuestionType) -> bool:
    """Krippendorff's alpha (and percent agreement) fit: the type has alpha levels."""
    return bool(t.agreement_levels)


def few_categories(t: QuestionType) -> bool:
    """Fleiss and Cohen fit: answers fall in a few categories."""
    return t.categories


def nominal_categories(t: QuestionType) -> bool:
    """AC1 fits: a few unordered categories."""
    return t.categories and t.level is Level.NOMINAL


def scaled(t: QuestionType) -> bool:
    """AC2 fits: one ordinal or interval value per answer."""
    return not t.structured and t.level in (Level.ORDINAL, Level.INTERVAL)


def numeric_scale(t: QuestionType) -> bool:
    """The ICC fits: one number per answer on an ordinal or interval scale."""
    return t.numeric and not t.structured and t.level in (Level.ORDINAL, Level.INTERVAL)


def continuous(t: QuestionType) -> bool:
    """Pearson's r fits: one number per answer on an interval scale."""
    return t.numeric and not t.structured and t.level is Level.INTERVAL


#: More distinct values than this make a q x q weight matrix too large to be worth it
#: (continuous scores); ICC and alpha cover those fields.
CHANCE_MAX_CATEGORIES = 200


#: A statistic among people is a :class:`~agreement.measures.Measure` of that section
#: (the section is its default); the name stays for the declarations that use it.
Statistic = Measure


def declare(stat: Statistic) -> Statistic:
    """Add a statistic to the measure registry (its key must be new); returns it."""
    return register_measure(stat)


def undeclare(key: str) -> None:
    """Remove the statistic declared under ``key``."""
    unregister_measure(key)


@contextlib.contextmanager
def declared(stat: Statistic) -> Iterator[Statistic]:
    """The statistic declared for the duration of a ``with`` block (tests, plugins)."""
    declare(stat)
    try:
        yield stat
    finally:
        unregister_measure(stat.key, stat.section)


def statistics() -> tuple[Statistic, ...]:
    """Every declared statistic among people, in display order."""
    return measures(AMONG_PEOPLE)


def field_entries(
    f: dict[str, Any], keep: Callable[[Statistic], bool] | None = None
) -> list[Entry]:
    """The statistics that apply to field block ``f`` (a JSON field dict), in order."""
    out = []
    for stat in statistics():
        if not stat.applies(f["type"]) or (keep is not None and not keep(stat)):
            continue
        out += read(stat, f, f["n_items"])
    return out


def field_details(f: dict[str, Any], kind: str | None = None) -> list[DetailEntry]:
    """The declared details (notes, per-pair values) present in field block ``f``, in
    declaration order; of ``kind`` only when given."""
    return [d for stat in statistics() for d in read_details(stat, f, kind)]


# -- compute functions of the declared statistics -------------------------------------


def _rated(r: Ratings) -> np.ndarray:
    order = r.unit_order()
    return r.counts[order][r.m[order] >= 1]


def _chance(ctx: StatContext, which: str, weights: str) -> Stat:
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
                    draw_counts(len(counts), ctx.n_resamples, ctx.seed),
                ),
                strict=True,
            )
        ),
    )
    from_parts = gwet_from_parts if which == "gwet" else fleiss_missing_from_parts
    ci, _ = percentile_ci(from_parts(*parts[weights], w_cat))
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
            DERIVED,
            applies_when=alpha_fits,
            compute=classic.alpha_by_level,
            ci_key="krippendorff_alpha_ci",
            n_key="n_pairable",
            per_level=True,
            always=True,
            # n_pairable is written with the variable's counts, before every measure
            layout=("value", "ci"),
            json_rank=0,
            chart=True,
            summary=True,
            panel=True,
            leads=True,
            short="α",
        )
    )
    declare(
        Statistic(
            "fleiss_kappa",
            "Fleiss kappa (modal-count items)",
            "Fleiss' kappa over the items with the modal number of ratings",
            frozenset(),
            applies_when=few_categories,
            compute=classic.fleiss_modal,
            ci_key="fleiss_kappa_ci",
            n_key="fleiss_n_items",
            always=True,
            layout=("value", "n", "ci", "fleiss_items_note"),
            details=(Detail("fleiss_items_note", NOTE, label="Fleiss", in_notes=True),),
            json_rank=0,
            chart=True,
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
            frozenset(),
            applies_when=few_categories,
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
            DERIVED,
            applies_when=alpha_fits,
            compute=classic.percent,
            n_key="percent_agreement_n_items",
            always=True,
            layout=("value", "n"),
            json_rank=0,
            summary=True,
        )
    )
    declare(
        Statistic(
            "gwet_ac1",
            "AC1",
            "Gwet's AC1",
            frozenset(),
            applies_when=nominal_categories,
            compute=lambda ctx: with_caveat(
                ctx, classic.ac1(ctx), "AC1", "gwet_ac1_caveat", ("nominal",)
            ),
            ci_key="gwet_ac1_ci",
            n_key="gwet_ac1_n_items",
            json_rank=0,
            summary=True,
            details=(Detail("gwet_ac1_caveat", NOTE, label="AC1 vs alpha", in_notes=True),),
            not_applicable="Gwet's AC1 is reported for binary and categorical fields",
        )
    )
    for weights in ("linear", "quadratic"):
        declare(
            Statistic(
                f"gwet_ac2_{weights}",
                f"AC2 {weights}",
                f"Gwet's AC2 with {weights} weights",
                frozenset(),
                applies_when=scaled,
                # the summary's AC2 (quadratic) says when it parts from alpha
                compute=lambda ctx, w=weights: (
                    with_caveat(
                        ctx,
                        _chance(ctx, "gwet", w),
                        "AC2 (quadratic)",
                        "gwet_ac2_caveat",
                        ("interval", "ordinal"),
                    )
                    if w == "quadratic"
                    else _chance(ctx, "gwet", w)
                ),
                details=(
                    (Detail("gwet_ac2_caveat", NOTE, label="AC2 vs alpha", in_notes=True),)
                    if weights == "quadratic"
                    else ()
                ),
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
            frozenset(),
            applies_when=few_categories,
            compute=classic.cohen_mean,
            always=True,
            # the pairs behind the mean come before it, the weighted pairs after
            layout=(
                "cohen_kappa_pairs",
                "cohen_kappa_pairs_n",
                "cohen_kappa_min_overlap",
                "cohen_kappa_pairs_few",
                "value",
                *(f"cohen_kappa_pairs_{w}" for w in classic.COHEN_WEIGHTS),
            ),
            reason_layout=(
                "cohen_kappa_pairs",
                "value",
                "cohen_kappa_pairs_few",
                *(f"cohen_kappa_pairs_{w}" for w in classic.COHEN_WEIGHTS),
            ),
            json_rank=0,
            details=(
                Detail(
                    "cohen_kappa_pairs",
                    label="Cohen kappa per pair",
                    long="Cohen's kappa per annotator pair",
                    n_key="cohen_kappa_pairs_n",
                    chart=True,
                    few_key="cohen_kappa_pairs_few",
                    minimum_key="cohen_kappa_min_overlap",
                ),
                *(
                    Detail(f"cohen_kappa_pairs_{w}", label=f"weighted ({w})")
                    for w in classic.COHEN_WEIGHTS
                ),
                Detail(
                    "cohen_kappa_pairs_summary",
                    NOTE,
                    label="Cohen pairs",
                    long="Cohen's kappa over annotator pairs",
                    in_notes=True,
                ),
            ),
        )
    )
    from agreement.icc import FORMS

    for suffix, name in FORMS:
        declare(
            Statistic(
                f"icc_{suffix}",
                name,
                f"Intraclass correlation {name}",
                DERIVED,
                applies_when=numeric_scale,
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
            DERIVED,
            applies_when=continuous,
            compute=_pearson_mean,
            summary=True,
            details=(
                Detail(
                    "pearson_pairs",
                    label="Pearson r per pair",
                    long="Pearson r per annotator pair",
                    n_key="pearson_pairs_n",
                    in_notes=True,
                ),
            ),
            not_applicable="mean pairwise Pearson is reported for continuous fields",
            method="Pearson's r of every annotator pair on the items both rated, averaged "
            "over the pairs where it is defined (Potato's figure); pairs and their n are in "
            "pearson_pairs / pearson_pairs_n; n = items with two or more ratings.",
        )
    )
