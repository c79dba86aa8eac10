"""Method notes printed in every report (the long form is docs/agreement.md)."""

METHOD_NOTES: tuple[tuple[str, str], ...] = (
    (
        "Krippendorff's alpha",
        "alpha = 1 - D_o / D_e from the coincidence matrix of pairable units (units with two "
        "or more ratings; others do not count), at each level of measurement that fits the "
        "field (krippendorff package). n = pairable units.",
    ),
    (
        "Fleiss' kappa",
        "(P - P_e) / (1 - P_e) over the items with the most common number of ratings "
        "(statsmodels' formula; 'modal-count items'); the number of items used is reported, "
        "beside the missing-data form over every item.",
    ),
    (
        "Cohen's kappa",
        "(p_o - p_e) / (1 - p_e) for every annotator pair on their shared items; ordinal "
        "fields also get linear and quadratic weights over the field's ordered scale.",
    ),
    (
        "Percent agreement",
        "mean over items with two or more ratings of the share of rater pairs that agree.",
    ),
    (
        "Gwet's AC1",
        "(p_a - p_e) / (1 - p_e), p_e = sum_k pi_k (1 - pi_k) / (q - 1); binary and "
        "categorical fields; bootstrap CI over items.",
    ),
    (
        "Evaluator vs humans",
        "Pearson, Spearman and Kendall tau-b of the evaluator's score (mean over runs) with "
        "the mean human value (for derived scores: derived per annotator, then averaged); "
        "p-values from scipy; 95% percentile bootstrap intervals resampling items (seeded).",
    ),
    (
        "Binary decisions",
        "precision, recall, F1 and Cohen's kappa against the majority human label; items "
        "with tied human labels have no majority and are left out. Continuous scores are "
        "rescaled to 0..1 and thresholded as in Bi-Fact (Table 1): the best-F1 threshold "
        "of linspace(0.01, 1.0, 30) on the dev split, figures on the test split.",
    ),
    (
        "Ego-centric bias",
        "FinGrAct: on a 0-5 scale, over-estimation = score >= mean human + 2, "
        "under-estimation = score <= mean human - 2; counts averaged over runs; own vs other "
        "generator rates compared with a Fisher exact test. A 1-5 judge's grades are counted "
        "after the scale mapping its run notes state (scale_mapping).",
    ),
    (
        "Undefined values",
        "a statistic that is undefined (one rater, one category only, no pairable unit, "
        "zero variance) is null with its reason, never 0 or NaN.",
    ),
)
