"""Evaluate: batch runs of evaluators in the background, with live progress."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from common.evaluator_labels import nli_backend_label
from evaluators.registry import evaluators_for_kind
from jobs.runner import has_corpus_summary, run_corpus_summary
from jobs.worker import evaluate_params, submit_evaluate_job
from ui.audit.jobs_view import active_jobs, flash, get_worker, jobs_section, watch_jobs
from ui.context import current_user, get_store, has_role, require_project
from ui.evaluator_panel import _cached_reasons, _llm_key, status_rows

store = get_store()
project = require_project()
user = current_user()
worker = get_worker()

st.title("Evaluate", anchor=False)
st.caption(
    f"{project.name} · {project.task_kind.title}. Runs execute in a background worker: "
    "leave or reload this page at any time, the progress is kept in the database."
    + (
        ""
        if worker is not None
        else " This server does not run jobs itself (`WORKBENCH_JOBS_IN_APP=0`): queued "
        "jobs wait for a `python cli.py worker` process."
    )
)

# Stored custom judges of this kind run like the registered evaluators (judge:NAME).
names = evaluators_for_kind(project.kind) + [j.evaluator for j in store.judges(project.name)]
reasons = _cached_reasons(tuple(names), _llm_key())
available = [n for n in names if reasons.get(n) is None]

project_jobs = store.jobs(project.name)
with st.expander(
    f"Evaluators of this kind: {len(available)} of {len(names)} ready",
    expanded=len(available) < len(names) and not project_jobs,
    icon=":material/checklist:",
):
    st.dataframe(
        pd.DataFrame(status_rows(reasons), columns=["evaluator", "status", "how to enable"]),
        hide_index=True,
        width="stretch",
        column_config={"how to enable": st.column_config.TextColumn(width="large")},
    )

if not has_role("admin", "reviewer"):
    st.info("Batch runs are started by reviewers and admins.", icon=":material/lock:")
else:
    # Folded while a job runs, so its progress stays in view just below.
    busy = bool(active_jobs(project_jobs))
    with st.expander("New batch run", expanded=not busy, icon=":material/play_circle:"):
        # Outside the form, so the subset inputs below follow the choice at once.
        mode = (
            st.segmented_control(
                "Items",
                ["all", "first", "split", "ids"],
                default="all",
                key="ev_mode",
                format_func={
                    "all": "All items",
                    "first": "First N",
                    "split": "One split",
                    "ids": "Item ids",
                }.get,
            )
            or "all"
        )
        with st.form("new-run", border=False):
            chosen = st.multiselect(
                "Evaluators", available, key="ev_names", placeholder="Choose one or more"
            )
            missing = sum(1 for r in reasons.values() if r)
            if missing:
                st.caption(
                    f"{missing} of {len(reasons)} evaluator(s) not available here: see below."
                )
            c1, c3 = st.columns(2)
            runs = c1.number_input(
                "Runs per item",
                1,
                10,
                None,
                key="ev_runs",
                placeholder="each evaluator's default",
                help="Empty: each evaluator's default (FinGrAct averages 3)",
            )
            only_missing = c3.checkbox(
                "Only items without a result",
                key="ev_missing",
                help="Skip (item, run) pairs that already have a "
                "result with the same evaluator signature",
            )
            first_n, split, ids = 20, "", ""
            if mode == "first":
                first_n = st.number_input("N (first N)", 1, 100_000, 20, key="ev_n")
            elif mode == "split":
                splits = sorted({i.split for i in store.items(project.name) if i.split})
                split = st.selectbox("Split", splits or ["(no splits)"], key="ev_split")
            elif mode == "ids":
                ids = st.text_input("Item ids (comma-separated)", key="ev_ids")
            batch = st.number_input(
                "Batch size",
                1,
                1024,
                None,
                key="ev_batch",
                placeholder="each evaluator's default",
                help="Items per batch; results are saved and cancel is checked per batch. "
                "Empty: each evaluator's default (256 for local models, which batch on the "
                "CPU; for LLM judges the client's concurrency limit, at most 16)",
            )
            run_mode = st.radio(
                "Run mode",
                ["online", "batch"],
                format_func={"online": "Online", "batch": "Batch API"}.get,
                horizontal=True,
                key="ev_run_mode",
                help="Batch API: LLM judges send their uncached requests as one OpenAI batch "
                "and the worker polls until it is done (often hours, at the provider's batch "
                "price); a restart resumes the same batch. Local evaluators run as usual.",
            )
            go = st.form_submit_button("Start", type="primary", icon=":material/play_arrow:")
        if go:
            subset = {
                "mode": mode,
                "n": int(first_n),
                "split": split,
                "ids": [i.strip() for i in ids.split(",") if i.strip()],
            }
            try:
                params = evaluate_params(
                    chosen,
                    runs=int(runs) if runs else None,
                    subset=subset,
                    only_missing=only_missing,
                    batch_size=int(batch) if batch else None,
                    mode=run_mode or "online",
                )
                job_id = submit_evaluate_job(store, project.name, params, created_by=user.name)
            except ValueError as exc:
                st.error(str(exc))
            else:
                if worker is not None:
                    worker.wake()
                flash("success", f"Job {job_id} queued.")
                watch_jobs()
                st.rerun()

jobs_section(project.name)


@st.cache_data(show_spinner=False, max_entries=200)
def _corpus_summary(url: str, run_id: int, evaluator: str, finished: str) -> dict | None:
    """A finished run's corpus figures, cached by database, run and finish time (a
    finished run never changes)."""
    return run_corpus_summary(get_store(), run_id, evaluator)


summarised = [
    r for r in store.runs(project.name) if r.status == "done" and has_corpus_summary(r.evaluator)
]
if summarised:
    st.subheader("Corpus figures", anchor=False)
    st.caption(
        "Whole-run figures as the papers report them (SGSAcc per utterance, the paper's "
        "headline, beside the per-act share, each with and without validation, and the "
        "share failing validation; SER with the slots it cannot judge), newest first. "
        "An NLI evaluator's name says which backend ran."
    )
    table = []
    for r in summarised[:20]:
        figures = _corpus_summary(store.url, r.id, r.evaluator, str(r.finished_at)) or {}
        table.append(
            {
                "run": r.id,
                "evaluator": (
                    f"{r.evaluator} ({backend})"
                    if (backend := nli_backend_label(r.model))
                    else r.evaluator
                ),
                "model": r.model,
                "finished": r.finished_at,
                **{
                    k: json.dumps(v, sort_keys=True) if isinstance(v, dict) else v
                    for k, v in figures.items()
                },
            }
        )
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch", key="corpus_figures")

if has_role("admin", "reviewer"):
    st.page_link(
        "pages/audit.py", label="See the results in the audit", icon=":material/troubleshoot:"
    )
