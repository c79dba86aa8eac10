"""Gwet's AC1 (nominal categories) and AC2 with linear and quadratic weights (ordinal and
interval fields), each with a note where it parts from alpha."""

from agreement import people_measures as classic
from agreement.chance_caveat import with_caveat
from agreement.measures import NOTE, Detail, Measure, MeasureView
from agreement.results import Stat
from agreement.stat_context import StatContext
from agreement.statistics import declare, nominal_categories, scaled

AC1 = declare(
    Measure(
        "gwet_ac1",
        MeasureView(
            "AC1",
            "Gwet's AC1",
            summary=True,
            details=(Detail("gwet_ac1_caveat", NOTE, label="AC1 vs alpha", in_notes=True),),
        ),
        applies_when=nominal_categories,
        compute=lambda ctx: with_caveat(
            ctx, classic.ac1(ctx), "AC1", "gwet_ac1_caveat", ("nominal",)
        ),
        ci_key="gwet_ac1_ci",
        n_key="gwet_ac1_n_items",
        json_rank=0,
        not_applicable="Gwet's AC1 is reported for binary and categorical fields",
    )
)


def _ac2_quadratic(ctx: StatContext) -> Stat:
    """AC2 with quadratic weights: the summary's AC2, so it says when it parts from alpha."""
    stat = classic.chance_corrected(ctx, "gwet", "quadratic")
    return with_caveat(ctx, stat, "AC2 (quadratic)", "gwet_ac2_caveat", ("interval", "ordinal"))


AC2_LINEAR = declare(
    Measure(
        "gwet_ac2_linear",
        MeasureView(
            "AC2 linear",
            "Gwet's AC2 with linear weights",
            summary=False,
            method="AC1 with agreement weights over the category values (linear: "
            "1 - |x_k - x_l| / range, quadratic: 1 - ((x_k - x_l) / range)^2), "
            "p_e = sum(w) / (q (q - 1)) * sum_k pi_k (1 - pi_k), as irrCAC's gwet; "
            "ordinal and interval fields; n = items with two or more ratings.",
        ),
        applies_when=scaled,
        compute=lambda ctx: classic.chance_corrected(ctx, "gwet", "linear"),
        not_applicable="Gwet's AC2 is reported for ordinal and interval fields",
    )
)

AC2_QUADRATIC = declare(
    Measure(
        "gwet_ac2_quadratic",
        MeasureView(
            "AC2 quadratic",
            "Gwet's AC2 with quadratic weights",
            details=(Detail("gwet_ac2_caveat", NOTE, label="AC2 vs alpha", in_notes=True),),
            summary=True,
            method="",
        ),
        applies_when=scaled,
        compute=_ac2_quadratic,
        not_applicable="Gwet's AC2 is reported for ordinal and interval fields",
    )
)
