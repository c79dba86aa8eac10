"""The mean pairwise Pearson r among annotators (continuous fields), pairs as a detail."""

from agreement.measures import Detail, Measure, MeasureView
from agreement.results import Stat
from agreement.stat_context import StatContext
from agreement.statistics import DERIVED, continuous, declare


def _pearson_mean(ctx: StatContext) -> Stat:
    from agreement.pairwise import mean_pairwise_pearson

    return mean_pairwise_pearson(ctx.ratings, ctx.n_resamples, ctx.seed)


PEARSON_MEAN = declare(
    Measure(
        "pearson_pairs_mean",
        MeasureView(
            "Pearson mean",
            "Mean pairwise Pearson r among annotators",
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
            method="Pearson's r of every annotator pair on the items both rated, averaged "
            "over the pairs where it is defined (Potato's figure); pairs and their n are in "
            "pearson_pairs / pearson_pairs_n; n = items with two or more ratings.",
        ),
        DERIVED,
        applies_when=continuous,
        compute=_pearson_mean,
        not_applicable="mean pairwise Pearson is reported for continuous fields",
    )
)
