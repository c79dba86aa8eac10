"""An evaluator's scores against the people's reference: the three correlations.

They are computed together (one bootstrap draw serves all three, see
:func:`agreement.correlation.correlations`), so their declarations have no ``compute``.
"""

from agreement.measures import EVALUATOR, Measure, MeasureView, register_measure

#: Field types an evaluator's scores are compared on (numeric human fields, derived).
SCORED = frozenset({"binary", "ordinal", "interval", "derived"})

for key, header, name, short, headline in (
    ("pearson", "Pearson r", "Pearson's r", "r", {"interval", "derived"}),
    ("spearman", "Spearman", "Spearman's rho", "ρ", {"ordinal"}),
    ("kendall", "Kendall tau-b", "Kendall's tau-b", "τ", set()),
):
    register_measure(
        Measure(
            key,
            MeasureView(
                header,
                f"{name} of the evaluator's score and the human reference",
                summary=True,
                panel=True,
                short=short,
                headline=frozenset(headline),
                # the scatter plot draws a least-squares line: Pearson's r measures its fit
                fit=key == "pearson",
            ),
            SCORED,
            section=EVALUATOR,
            nested=True,
        )
    )
