"""Ego-centric bias counts (FinGrAct): items scored 2 or more points above / below the
people's mean on a 0-5 scale, averaged over runs (see :mod:`agreement.bias`)."""

from agreement.measures import BIAS, Measure, MeasureView, register_measure

GRADED = frozenset({"ordinal", "interval", "derived"})

# The judge's own model first (FinGrAct's headline counts only its own explanations),
# then all items, then the other models' items.
for key, header, name in (
    ("over_own", "over (own model)", "Over-estimated items the judge's own model generated"),
    ("under_own", "under (own model)", "Under-estimated items the judge's own model generated"),
    ("over", "over", "Items over-estimated by 2 or more points (0-5 scale)"),
    ("under", "under", "Items under-estimated by 2 or more points (0-5 scale)"),
    ("over_other", "over (other models)", "Over-estimated items other models generated"),
):
    register_measure(
        Measure(
            key,
            MeasureView(
                header,
                name,
                digits=1,
                summary=key in ("over_own", "under_own", "over", "under"),
            ),
            GRADED,
            section=BIAS,
            n_key={"over_own": "n_own", "under_own": "n_own", "over_other": "n_other"}.get(
                key, "n"
            ),
            p_key="fisher_p" if key == "over_own" else None,
        )
    )
