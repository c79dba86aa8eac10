"""The intraclass correlations (pingouin's six forms) for numeric ratings."""

from collections.abc import Callable

from agreement.icc import FORMS
from agreement.measures import Measure, MeasureView
from agreement.results import Stat
from agreement.stat_context import StatContext
from agreement.statistics import DERIVED, declare, numeric_scale

METHOD = (
    "pingouin's intraclass_corr (two-way ANOVA; Shrout & Fleiss 1979, McGraw "
    "& Wong 1996): ICC(1,1), ICC(A,1) = ICC(2,1), ICC(C,1) = ICC(3,1) and "
    "their k-rater forms with F-based 95% intervals; items some annotator "
    "did not rate are dropped (listwise), n = complete items."
)


def _form(suffix: str) -> Callable[[StatContext], Stat]:
    """The compute function of one ICC form; the six forms share one ANOVA per field."""

    def compute(ctx: StatContext) -> Stat:
        from agreement.icc import icc_forms

        return ctx.once("icc", lambda: icc_forms(ctx.ratings))[suffix]

    return compute


ICC = tuple(
    declare(
        Measure(
            f"icc_{suffix}",
            MeasureView(
                name,
                f"Intraclass correlation {name}",
                summary=suffix == "a_1",
                method=METHOD if suffix == "1_1" else "",
            ),
            DERIVED,
            applies_when=numeric_scale,
            compute=_form(suffix),
            not_applicable="the intraclass correlation is for numeric ratings",
        )
    )
    for suffix, name in FORMS
)
