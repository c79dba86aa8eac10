"""Percent agreement: the share of agreeing pairs of ratings."""

from agreement import people_measures as classic
from agreement.measures import Measure, MeasureView
from agreement.statistics import DERIVED, alpha_fits, declare

PERCENT = declare(
    Measure(
        "percent_agreement",
        MeasureView(
            "% agree",
            "Percent agreement",
            summary=True,
        ),
        DERIVED,
        applies_when=alpha_fits,
        compute=classic.percent,
        n_key="percent_agreement_n_items",
        always=True,
        layout=("value", "n"),
        json_rank=0,
    )
)
