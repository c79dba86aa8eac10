"""The Agreement page's tables, driven by the statistic declarations.

Numbers stay numbers in the frames (sortable, and what tests read); what is shown is
formatted like the estimates, with ``—`` for undefined values and the reasons in a note
under each table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from agreement.measures import BINARY, EVALUATOR, measures
from agreement.rows import evaluator_entries
from agreement.statistics import DASH, field_entries
from agreement.views import variables
from common.notes import once_each
from reports.render import STAT_HEADER, field_notes, statistic_table
from ui.tables import dash_missing

NOT_SHOWN = (
    f"{DASH} marks a statistic that does not apply to the field's type (e.g. Fleiss' kappa "
    "on continuous scores) or is undefined on its data; the table below lists every "
    "statistic that applies, with the reason when it is undefined."
)
BASE_COLUMNS = {
    "type": "type",
    "units": "n_items",
    "pairable": "n_pairable",
    "ratings": "n_ratings",
}


def summary_frame(data: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, str]]:
    """One row per field: counts and the declared summary statistics, each with its n as
    ``n / units`` beside it; and the number format of every statistic column."""
    rows, formats = [], {}
    for view in variables(data):
        f = view.block
        row: dict[str, Any] = {"field": view.name, **{k: f[v] for k, v in BASE_COLUMNS.items()}}
        for e in field_entries(f, keep=lambda s: s.view.summary):
            row[e.label] = e.value
            formats[e.label] = f"{{:.{e.measure.view.digits}f}}"
            if e.level is None and e.n is not None:
                row[f"{e.label} n"] = e.n_text
        rows.append(row)
    return pd.DataFrame(rows), formats


def _show(target: Any, frame: pd.DataFrame, formats: dict[str, str]) -> None:
    """Draw ``frame``: numbers formatted as ``formats`` asks (``{:.3f}`` style) and
    undefined cells as ``—`` (``st.dataframe`` would draw a grey ``None``)."""
    config = {
        c: st.column_config.NumberColumn(format=f.replace("{:", "%").replace("}", ""))
        for c, f in formats.items()
        if c in frame.columns
    }
    table, config = dash_missing(frame, config, why="not defined here: see the notes below")
    target.dataframe(table, hide_index=True, column_config=config)


def _notes(lines: list[str]) -> None:
    for line in lines:
        st.caption(line)


def human_tables(data: dict[str, Any], charted: Sequence[str] = ()) -> None:
    """The per-field summary, then every statistic with its CI and n, with notes
    (``charted``: fields whose pair chart, with its caption, follows on the page)."""
    frame, formats = summary_frame(data)
    _show(st, frame, formats)
    st.caption(NOT_SHOWN)
    st.subheader("Every statistic with its 95% interval and n")
    rows, notes = statistic_table(data)
    _show(st, pd.DataFrame(rows, columns=STAT_HEADER), {})
    _notes(notes + field_notes(data, charted))


def p_text(p: float | None) -> str | None:
    """A p-value with four decimals; below that ``< 0.0001``, not ``0.0000``."""
    if p is None:
        return None
    return "< 0.0001" if p < 0.00005 else f"{p:.4f}"


def correlation_table(col: Any, e: dict[str, Any]) -> None:
    """The evaluator-vs-people measures of one evaluator and field, CI formatted like r."""
    entries = evaluator_entries(e, EVALUATOR)
    table = pd.DataFrame(
        [
            {
                "statistic": x.measure.view.header,
                "r": x.value,
                "p": p_text(x.p),
                "95% CI": x.ci_text,
                "n": x.n,
            }
            for x in entries
        ]
    )
    _show(col, table, {"r": "{:.3f}"})
    reasons = []
    for x in entries:
        ci_reason = (e.get(x.measure.key) or {}).get("ci_reason") if x.measure.nested else None
        why = x.reason or (ci_reason if not x.ci else None)
        if why:
            reasons.append((x.measure.view.header, why))
    for line in once_each(reasons, "measures"):
        col.caption(line)


def calibrated_table(rows: list[dict[str, Any]]) -> None:
    """The calibrated binary comparison, undefined cells as a dash with the reasons below."""
    decided = measures(BINARY)
    frame = pd.DataFrame(rows)[
        ["evaluator", "score_field", *(m.key for m in decided), "n", "split"]
    ].rename(columns={"score_field": "score"})
    digits = {m.key: f"{{:.{m.view.digits}f}}" for m in decided}
    _show(st, frame, digits)
    notes = []
    for r in rows:
        if r.get("reason"):
            notes.append((f"{r['evaluator']} / {r['score_field']}", r["reason"]))
        for k, why in (r.get("reasons") or {}).items():
            notes.append((f"{r['evaluator']} / {r['score_field']} / {k}", why))
    _notes(once_each(notes, "figures"))
