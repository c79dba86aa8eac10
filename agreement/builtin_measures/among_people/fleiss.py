"""Fleiss' kappa: over the items with the modal number of ratings (the classic form),
and over every item with Gwet's missing-data form."""

from agreement import people_measures as classic
from agreement.measures import NOTE, Detail, Measure, MeasureView
from agreement.people_measures import FLEISS_NA
from agreement.statistics import declare, few_categories

FLEISS_MODAL = declare(
    Measure(
        "fleiss_kappa",
        MeasureView(
            "Fleiss kappa (modal-count items)",
            "Fleiss' kappa over the items with the modal number of ratings",
            details=(Detail("fleiss_items_note", NOTE, label="Fleiss", in_notes=True),),
            chart=True,
            summary=True,
            panel=True,
            short="Fleiss κ (modal)",
        ),
        applies_when=few_categories,
        compute=classic.fleiss_modal,
        ci_key="fleiss_kappa_ci",
        n_key="fleiss_n_items",
        always=True,
        layout=("value", "n", "ci", "fleiss_items_note"),
        json_rank=0,
        not_applicable=FLEISS_NA,
    )
)

FLEISS_ALL = declare(
    Measure(
        "fleiss_kappa_all_items",
        MeasureView(
            "Fleiss kappa (all items)",
            "Fleiss' kappa with missing ratings (Gwet's form)",
            summary=True,
            panel=True,
            short="Fleiss κ (all)",
            method="Gwet's missing-data form of Fleiss' kappa (irrCAC's fleiss): p_a over the "
            "items with two or more ratings, category shares pi_k over every item with a "
            "rating, p_e = sum_k pi_k^2; no item is left out. n = items with a rating.",
        ),
        applies_when=few_categories,
        compute=lambda ctx: classic.chance_corrected(ctx, "fleiss", "identity"),
        not_applicable=FLEISS_NA,
    )
)
