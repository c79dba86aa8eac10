"""The Alignment page's probe-run control: one click queues a probe run of a judge
version (texts swapped, options reversed) in the background worker."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evaluators.judges.probes import PROBES
from evaluators.judges.spec import JudgeError
from ui.audit.jobs_view import get_worker
from ui.context import current_user, get_store
from workbench_api.judges import available_probes, queue_probe

KEY = "alignment_probe"


def probe_control(project: str, rows: list[dict[str, Any]]) -> None:
    """A version picker and one button per probe that applies to the chosen version."""
    store = get_store()
    judges = [r for r in rows if r["evaluator"].startswith("judge:")]
    if not judges:
        return
    labels = [r["label"] for r in judges]
    cols = st.columns([3, 2, 2])
    picked = cols[0].selectbox("Probe run of", labels, key=f"{KEY}_version")
    row = judges[labels.index(picked)]
    probes = available_probes(store, row["evaluator"], row["version"])
    if not probes:
        cols[1].caption("No probe applies to this version.")
        return
    for col, probe in zip(cols[1:], probes, strict=False):
        if col.button(
            f"Run {probe.replace('_', ' ')} probe", key=f"{KEY}_{probe}", help=PROBES[probe]
        ):
            try:
                job = queue_probe(
                    store,
                    project,
                    row["evaluator"],
                    row["version"],
                    probe,
                    created_by=current_user().name,
                )
            except (JudgeError, ValueError) as exc:
                st.error(str(exc))
                return
            worker = get_worker()
            if worker is not None:
                worker.wake()
            st.success(
                f"Probe run queued as job {job} ({PROBES[probe]}); the probes table shows "
                "the share of changed decisions when it is done (reload the page)."
            )
