"""Krippendorff's alpha at each of the field's levels (nominal, ordinal, interval)."""

from agreement import people_measures as classic
from agreement.measures import Measure, MeasureView
from agreement.statistics import DERIVED, alpha_fits, declare

ALPHA = declare(
    Measure(
        "krippendorff_alpha",
        MeasureView(
            "alpha",
            "Krippendorff's alpha",
            chart=True,
            summary=True,
            panel=True,
            leads=True,
            short="α",
        ),
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
    )
)
