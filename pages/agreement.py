"""Agreement page: reliability per field, annotator pairs, evaluators vs humans, calibrated
binary table, bias by generator, agreement over time, and the report download."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from agreement import AgreementDocument
from agreement.binary import flag_lines
from agreement.views import variable, variable_names, variables
from common.csv_safe import csv_bytes
from reports import figures
from reports.data import agreement_document
from reports.formats import FORMATS
from reports.render import build_report, csv_path, render_report
from ui import agreement_tables
from ui.agreement_evaluators import evaluators_section
from ui.agreement_panel import FIELD_KEY, _store_for
from ui.alarms_view import alarms_section
from ui.context import get_store, require_project
from ui.deferred_charts import DeferredCharts
from ui.reference_view import excluded_section, reference_select
from ui.shared_inputs import shared_inputs


@st.cache_resource(show_spinner=False, max_entries=16, ttl=3600)
def _document(
    url: str, project: str, version: str, resamples: int, reference: str = "majority"
) -> tuple[AgreementDocument, dict[str, Any]]:
    """The document and its JSON form, computed once per data version and shared by every
    visit and session (a resource: not copied per rerun; nothing here mutates it)."""
    store = _store_for(url)
    doc = agreement_document(
        store,
        project,
        n_resamples=resamples,
        reference_method=reference,
        inputs=shared_inputs(store, project, version, reference),
    )
    return doc, doc.to_dict()


REPORT_KEY = "agreement_report"
#: Session key of the open tab, and the tabs' titles.
TAB_KEY = "agreement_tab"
PEOPLE, EVALUATORS, CALIBRATED = "People", "Evaluators vs humans", "Calibrated binary"
OVER_TIME, REPORT, META = "Over time", "Report", "Meta-evaluation"
MIME = {"html": "text/html", "md": "text/markdown", "json": "application/json"}
FORMAT_NAMES = {"html": "HTML", "md": "Markdown", "json": "JSON"}


@st.cache_data(show_spinner="Building the report…", max_entries=8, ttl=3600)
def _report_files(
    url: str, project: str, version: str, items: tuple[str, ...], reference: str = "majority"
) -> dict[str, list[dict[str, Any]]]:
    """The report in every format and one reliability-matrix CSV per field, named as
    ``cli.py report --out agreement-<project>.<fmt>`` names them (the HTML and Markdown
    list the CSVs by those names)."""
    from alignment.report_section import alignment_for_report

    store = _store_for(url)
    report = build_report(
        store,
        project,
        item_ids=list(items) or None,
        reference_method=reference,
        alignment=alignment_for_report(store, project),
    )
    stem = Path(f"agreement-{project}.html")
    csv_names = {name: csv_path(stem, name).name for name in report.matrices}
    reports = [
        {
            "format": fmt_,
            "file_name": stem.with_suffix(f".{fmt_}").name,
            "mime": MIME[fmt_],
            "data": render_report(report, fmt_, csv_names).encode("utf-8"),
        }
        for fmt_ in FORMATS
    ]
    matrices = [
        {
            "field": name,
            "file_name": csv_names[name],
            "mime": "text/csv",
            "data": csv_bytes(frame, index=True),
        }
        for name, frame in report.matrices.items()
    ]
    return {"reports": reports, "matrices": matrices}


project = require_project()
store = get_store()
version = store.data_version(project.name)
st.title(f"Agreement · {project.name}")
resamples = st.sidebar.select_slider("Bootstrap resamples", [0, 200, 1000], value=1000)
reference = reference_select()
with st.spinner(f"Computing agreement ({resamples} bootstrap resamples)…", show_time=True):
    doc, data = _document(store.url, project.name, version, resamples, reference)
if data.get("exclusions"):
    excluded_section(data)
alarms_section(store, project.name, data.get("alarms") or [], "agreement")
if data["meta"].get("excluded"):  # the leakage guard: a judge version's worked examples
    from reports.judges import exclusion_lines

    st.caption("Left out of their judge version's figures: " + exclusion_lines(data["meta"]) + ".")
names = variable_names(data)
picked = None
if names:
    st.session_state.setdefault(FIELD_KEY, names[0])
    # Pairs, evaluators and the timeline are drawn for this field only: every plotly
    # chart costs the browser a redraw, and all of them at once made visits slow.
    picked = st.selectbox("Field (also shown in the side panel)", names, key=FIELD_KEY)

# Only the open tab is computed and drawn (issue #30): every plotly chart costs the
# browser about 0.2 s of CPU, and four at once made the first paint slow. Within a tab,
# charts keep their place but are sent last, so the numbers show first.
titles = [
    PEOPLE,
    EVALUATORS,
    *([CALIBRATED] if data["calibrated"] else []),
    OVER_TIME,
    REPORT,
    META,
]
tabs = dict(zip(titles, st.tabs(titles, key=TAB_KEY, on_change="rerun"), strict=True))
charts = DeferredCharts()


def _open(title: str) -> bool:
    """Whether the tab is open (untracked tabs, as in some tests, count as open)."""
    return tabs[title].open is not False


if _open(PEOPLE):
    with tabs[PEOPLE]:
        charts.add(figures.reliability_bars(data))
        agreement_tables.human_tables(data, charted=[picked] if picked else [])
        human = variable(data, picked, derived=False)
        ranked = figures.ranking_charts(human.block if human else {}, str(picked))
        if ranked:
            st.header("Ranking of the compared systems")
            for fig in ranked:
                charts.add(fig)
        st.header("Annotator pairs")
        if human is None:
            st.caption(f"Cohen's kappa per pair is drawn for human fields; {picked} is derived.")
        for v in variables(data, derived=False):
            fig = figures.kappa_heatmap(v.block, v.name) if v.name == picked else None
            if fig is not None:
                charts.add(fig)
                if note := figures.pair_note(v.block):
                    st.caption(note)

if _open(EVALUATORS):
    with tabs[EVALUATORS]:
        evaluators_section(doc, data, picked, charts)

if CALIBRATED in tabs and _open(CALIBRATED):
    with tabs[CALIBRATED]:
        for against, rows in data["calibrated"].items():
            st.header(f"Calibrated binary comparison vs {against} (Bi-Fact Table 1)")
            agreement_tables.calibrated_table(rows)
            if lines := flag_lines(rows):
                st.warning(
                    "Not findings yet:\n" + "\n".join(f"- {line}" for line in lines),
                    icon=":material/warning:",
                )

if _open(META):
    with tabs[META]:
        from ui.metaeval_view import metaeval_section

        metaeval_section(store, project.name, version, data, resamples, reference, charts)

if _open(OVER_TIME):
    with tabs[OVER_TIME]:
        points = data["timeline"].get(picked)
        if not points:
            st.caption(f"No agreement over time for `{picked}`.")
        elif figures.has_history(points):
            charts.add(figures.timeline(points, picked))
        else:
            st.caption(
                f"All {points[-1]['n_ratings']} ratings of `{picked}` were given within a "
                "minute (loaded or imported together): there is no history to draw yet."
            )


def _download(
    col: Any, label: str, entry: dict, key: str, icon: str = ":material/download:"
) -> None:
    """A download button for one built file (data, file name, MIME type)."""
    col.download_button(
        label,
        entry["data"],
        file_name=entry["file_name"],
        mime=entry["mime"],
        icon=icon,
        on_click="ignore",
        key=key,
    )


def _report_section() -> None:
    """Pick items, build the report in every format, offer the downloads."""
    st.header("Report")
    st.caption(
        "The agreement report as self-contained HTML, Markdown or JSON (the same document "
        "as `cli.py report`), with each human field's reliability matrix (items × "
        "annotators) as CSV beside it."
    )
    items = st.multiselect(
        "Items to drill down in the report",
        [i.item_id for i in store.items(project.name)][:5000],
        key="agreement_report_items",
    )
    if st.button("Build report", icon=":material/description:", key="agreement_report_build"):
        st.session_state[REPORT_KEY] = {
            "project": project.name,
            "version": version,
            "items": tuple(items),
            **_report_files(store.url, project.name, version, tuple(items), reference),
        }
    built = st.session_state.get(REPORT_KEY)
    if not built or built["project"] != project.name:
        return
    if built["version"] != version:
        st.caption("Labels or results changed since this report was built: build it again.")
    cols = st.columns(len(built["reports"]))
    for col, f in zip(cols, built["reports"], strict=True):
        _download(
            col, f"Report ({FORMAT_NAMES[f['format']]})", f, f"agreement_report_{f['format']}"
        )
    if built["matrices"]:
        st.caption("Reliability matrices (items × annotators), one CSV per field:")
        cols = st.columns(min(len(built["matrices"]), 4))
        for k, m in enumerate(built["matrices"]):
            key = f"agreement_report_csv_{m['field']}"
            _download(cols[k % len(cols)], f"{m['field']} (CSV)", m, key, ":material/table:")


if _open(REPORT):
    with tabs[REPORT]:
        _report_section()

charts.draw()
