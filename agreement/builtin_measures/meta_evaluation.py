"""The meta-evaluation's statistics (docs/metaeval.md): one evaluator against the people
at the segment, group and system level (the row's ``level``).

They are computed together by :mod:`agreement.metaeval` (one grid, one bootstrap per
level), so their declarations have no ``compute``; the rows come from
:meth:`agreement.metaeval.document.MetaEvaluation.rows`. The report's and the Agreement
page's Meta-evaluation tables take their columns, headers and decimals from here.
"""

from agreement.measures import Measure, MeasureView, register_measure
from agreement.metaeval.rows import SECTION as META

SCORED = frozenset({"binary", "ordinal", "interval", "derived"})

for key, header, name in (
    ("pearson", "Pearson r", "Pearson's r"),
    ("spearman", "Spearman", "Spearman's rho"),
    ("kendall_b", "Kendall tau-b", "Kendall's tau-b"),
    ("kendall_c", "Kendall tau-c", "Kendall's tau-c"),
    ("acc_eq", "acc_eq", "tie-calibrated pairwise accuracy (Deutsch et al. 2023)"),
    ("pairwise_accuracy", "pairwise acc.", "system pairwise accuracy (Kocmi et al. 2021)"),
    (
        "soft_pairwise_accuracy",
        "soft pairwise acc.",
        "soft pairwise accuracy (Thompson et al. 2024)",
    ),
):
    register_measure(
        Measure(
            key,
            MeasureView(
                header,
                name,
            ),
            SCORED,
            section=META,
        )
    )
