"""An evaluator's decisions against the people's binary majority: P, R, F1, kappa.

They are computed together from one confusion table (and one calibrated threshold for
graded scores, see :mod:`agreement.binary`), so their declarations have no ``compute``.
"""

from agreement.builtin_measures.evaluator_vs_people import SCORED
from agreement.measures import BINARY, Measure, MeasureView, register_measure

for key, header, name, digits in (
    ("threshold", "threshold", "Calibrated decision threshold", 2),
    ("precision", "precision", "Precision of the evaluator's positive decisions", 3),
    ("recall", "recall", "Recall of the people's positive items", 3),
    ("f1", "F1", "F1 of the evaluator's decisions", 3),
    ("kappa", "kappa", "Cohen's kappa of the evaluator's decisions and the majority", 3),
):
    register_measure(
        Measure(
            key,
            MeasureView(
                header,
                name,
                digits=digits,
                # on a binary field the alignment table's headline is the decisions' kappa
                headline=frozenset({"binary"} if key == "kappa" else ()),
            ),
            SCORED,
            section=BINARY,
            n_key="n",
        )
    )
