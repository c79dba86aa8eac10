"""The mean of Cohen's kappa over annotator pairs, with the pairs (and their weighted
forms) as details."""

from agreement import people_measures as classic
from agreement.measures import NOTE, Detail, Measure, MeasureView
from agreement.statistics import declare, few_categories

WEIGHTED = tuple(f"cohen_kappa_pairs_{w}" for w in classic.COHEN_WEIGHTS)

COHEN_MEAN = declare(
    Measure(
        "cohen_kappa_mean",
        MeasureView(
            "Cohen mean",
            "Mean of Cohen's kappa over annotator pairs",
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
        ),
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
            *WEIGHTED,
        ),
        reason_layout=("cohen_kappa_pairs", "value", "cohen_kappa_pairs_few", *WEIGHTED),
        json_rank=0,
    )
)
