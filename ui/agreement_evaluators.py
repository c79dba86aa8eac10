"""The Agreement page's "Evaluators vs humans" tab: for the picked field, each evaluator's
scatter against the people, its correlations, binary confusion and bias by generator."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreement import AgreementDocument
from agreement.views import evaluator_view
from reports import figures
from ui import agreement_tables
from ui.deferred_charts import DeferredCharts


def evaluators_section(
    doc: AgreementDocument, data: dict[str, Any], picked: str | None, charts: DeferredCharts
) -> None:
    """Draw the evaluators' figures for ``picked`` (charts go to ``charts``)."""
    st.header("Evaluators vs humans")
    if not doc.evaluators:
        st.info("No evaluator scores yet: run an evaluator or import scores.")
        return
    scored = sorted({f for by_field in doc.evaluators.values() for f in by_field})
    others = ", ".join(f for f in scored if f != picked)
    if picked not in scored:
        st.caption(f"No evaluator scores {picked}; pick one of {others} above.")
    elif others:
        st.caption(f"Figures for {picked}; evaluators also score {others} (pick above).")
    for ev, by_field in doc.evaluators.items():
        res = by_field.get(picked) if picked is not None else None
        view = evaluator_view(data, ev, picked)
        if res is None or view is None:
            continue
        e = view.block
        cols = st.columns(2)
        if res.pairs is not None and len(res.pairs):
            charts.add(figures.scatter(res.pairs, ev, picked, figures.fit_value(res)), cols[0])
        agreement_tables.correlation_table(cols[1], e)
        if e.get("binary") and e["binary"]["n"]:
            charts.add(figures.confusion(e["binary"], ev, picked), cols[1])
        if e.get("bias"):
            bias_fig = figures.bias_bars(e["bias"], f"{ev} on {picked}: bias by generator")
            why = None
            if bias_fig is not None:
                charts.add(bias_fig)
            else:
                why = figures.bias_explanation(e["bias"])
                st.caption(f"**{ev} on {picked}, bias by generator**: no chart, {why}.")
            st.caption(figures.bias_caption(e["bias"], said=why))  # the reason once
