"""Charts drawn after the numbers: each chart keeps its place on the page, but is sent
to the browser only once every table and figure above and below it has been sent.

Streamlit sends a page's elements as the script reaches them, and a plotly chart costs
the browser far more than a table; a page that draws its charts last shows its numbers
at once (issue #30: "numbers drawn before the charts").

    charts = DeferredCharts()
    charts.add(figure)                 # an empty slot here ...
    charts.add(figure, cols[0])        # ... or in a column
    st.dataframe(...)
    charts.draw()                      # the charts, into their slots, at the end
"""

from __future__ import annotations

from typing import Any

import streamlit as st


class DeferredCharts:
    """Slots reserved for plotly charts, filled by :meth:`draw`."""

    def __init__(self) -> None:
        self._pending: list[tuple[Any, Any, dict[str, Any]]] = []

    def add(self, figure: Any, where: Any = None, **kwargs: Any) -> None:
        """Keep a place for ``figure`` (in ``where``, a container or column, else the
        current one); ``kwargs`` go to ``st.plotly_chart`` (width "stretch" by default)."""
        slot = (where if where is not None else st).empty()
        self._pending.append((slot, figure, {"width": "stretch", **kwargs}))

    def draw(self) -> None:
        """Draw every kept chart into its place, in page order."""
        pending, self._pending = self._pending, []
        for slot, figure, kwargs in pending:
            slot.plotly_chart(figure, **kwargs)
