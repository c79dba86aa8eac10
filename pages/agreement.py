"""Agreement page: reliability per field, annotator pairs, evaluators vs humans, calibrated
binary table, bias by generator, agreement over time, and the report download."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from agreement import AgreementDocument
from common.csv_safe import csv_bytes
from reports import figures
from reports.data import agreement_document
from reports.formats import FORMATS
from reports.render import build_report, csv_path, render_report
from ui.agreement_panel import FIELD_KEY, _store_for
from ui.context import get_store, require_project


@st.cache_data(show_spinner="Computing agreement…", max_entries=16, ttl=3600)
def _document(url: str, project: str, version: str, resamples: int) -> AgreementDocument:
    return agreement_document(_store_for(url), project, n_resamples=resamples)


REPORT_KEY = "agreement_report"
MIME = {"html": "text/html", "md": "text/markdown", "json": "application/json"}
FORMAT_NAMES = {"html": "HTML", "md": "Markdown", "json": "JSON"}


@st.cache_data(show_spinner="Building the report…", max_entries=8, ttl=3600)
def _report_files(
    url: str, project: str, version: str, items: tuple[str, ...]
) -> dict[str, list[dict[str, Any]]]:
    """The report in every format and one reliability-matrix CSV per field, named as
    ``cli.py report --out agreement-<project>.<fmt>`` names them (the HTML and Markdown
    list the CSVs by those names)."""
    report = build_report(_store_for(url), project, item_ids=list(items) or None)
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
doc = _document(store.url, project.name, version, resamples)
data = doc.to_dict()
names = list(data["fields"]) + list(data["derived"])
if names:
    st.session_state.setdefault(FIELD_KEY, names[0])
    st.selectbox("Field (also shown in the side panel)", names, key=FIELD_KEY)

st.plotly_chart(figures.reliability_bars(data), width="stretch")
rows = []
for section in ("fields", "derived"):
    for name, f in data[section].items():
        rows.append(
            {
                "field": name,
                "type": f["type"],
                "units": f["n_items"],
                "pairable": f["n_pairable"],
                "ratings": f["n_ratings"],
                **{f"alpha {k}": v for k, v in f["krippendorff_alpha"].items()},
                "Fleiss κ": f["fleiss_kappa"],
                "Fleiss n": f["fleiss_n_items"],
                "% agree": f["percent_agreement"],
                "AC1": f["gwet_ac1"],
            }
        )
st.dataframe(pd.DataFrame(rows), hide_index=True)
with st.expander("Why some values are empty"):
    for section in ("fields", "derived"):
        for name, f in data[section].items():
            for key, why in f["reasons"].items():
                st.write(f"**{name}** · {key}: {why}")

st.header("Annotator pairs")
for name, f in data["fields"].items():
    fig = figures.kappa_heatmap(f, name)
    if fig is not None:
        st.plotly_chart(fig, width="stretch")

st.header("Evaluators vs humans")
if not doc.evaluators:
    st.info("No evaluator scores yet: run an evaluator or import scores.")
for ev, by_field in doc.evaluators.items():
    for name, res in by_field.items():
        e = data["evaluators"][ev][name]
        cols = st.columns(2)
        if res.pairs is not None and len(res.pairs):
            cols[0].plotly_chart(
                figures.scatter(res.pairs, ev, name, res.correlations["pearson"].r),
                width="stretch",
            )
        table = pd.DataFrame(
            [
                {
                    "statistic": k,
                    "r": e[k]["r"],
                    "p": e[k]["p"],
                    "95% CI": e[k]["ci"],
                    "n": e[k]["n"],
                }
                for k in ("pearson", "spearman", "kendall")
            ]
        )
        cols[1].dataframe(table, hide_index=True)
        if e.get("binary") and e["binary"]["n"]:
            cols[1].plotly_chart(
                figures.confusion(e["binary"], f"{ev} {name} vs human {e['binary']['against']}"),
                width="stretch",
            )
        if e.get("bias") and e["bias"].get("by_generator"):
            st.plotly_chart(
                figures.bias_bars(e["bias"], f"{ev} on {name}: bias by generator"),
                width="stretch",
            )
            b = e["bias"]
            st.caption(
                f"over {b['over']} / under {b['under']} of {b['n']} (mean of "
                f"{b['n_runs']} runs) · own {b['over_own']}/{b['n_own']} vs other "
                f"{b['over_other']}/{b['n_other']} · Fisher p {b['fisher_p']}"
            )

for against, rows in data["calibrated"].items():
    st.header(f"Calibrated binary comparison vs {against} (Bi-Fact Table 1)")
    st.dataframe(
        pd.DataFrame(rows)[
            [
                "evaluator",
                "score_field",
                "threshold",
                "precision",
                "recall",
                "f1",
                "kappa",
                "n",
                "split",
            ]
        ],
        hide_index=True,
    )

if data["timeline"]:
    st.header("Agreement over time")
    for name, points in data["timeline"].items():
        if points:
            st.plotly_chart(figures.timeline(points, name), width="stretch")

st.header("Report")
st.caption(
    "The agreement report as self-contained HTML, Markdown or JSON (the same document as "
    "`cli.py report`), with each human field's reliability matrix (items × annotators) "
    "as CSV beside it."
)
picked = st.multiselect(
    "Items to drill down in the report",
    [i.item_id for i in store.items(project.name)][:5000],
    key="agreement_report_items",
)
if st.button("Build report", icon=":material/description:", key="agreement_report_build"):
    st.session_state[REPORT_KEY] = {
        "project": project.name,
        "version": version,
        "items": tuple(picked),
        **_report_files(store.url, project.name, version, tuple(picked)),
    }


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


built = st.session_state.get(REPORT_KEY)
if built and built["project"] == project.name:
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
