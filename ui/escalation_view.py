"""The Alignment page's escalation card: where the judge may decide alone with a
guarantee (Trust or Escalate), and the items it sends to people, queued in one click."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from alignment.escalate import SOURCES, escalation
from alignment.escalation import ALPHA, DELTA
from alignment.inputs import AlignmentError, FieldInputs
from ui.context import get_store, has_role


@st.cache_data(show_spinner=False, max_entries=16, ttl=3600)
def _escalation(
    url: str,
    project: str,
    version: str,
    field: str,
    label: str,
    alpha: float,
    delta: float,
    source: str,
    _inputs: FieldInputs | None = None,
) -> dict[str, Any]:
    """The escalation document (``url`` and ``version`` are only part of the cache key;
    ``_inputs``: the page's inputs of the field at ``version``, not hashed)."""
    return escalation(
        get_store(),
        project,
        field,
        label,
        alpha=alpha,
        delta=delta,
        source=source,
        inputs=_inputs,
    )


def _fixed(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def tests_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per set of kept items the walk tested, highest threshold first."""
    return pd.DataFrame(
        [
            {
                "threshold": t["threshold"],
                "kept n": t["n"],
                "disagree": t["errors"],
                "p (binomial tail)": t["p"],
                "upper bound of disagreement": t["upper_bound"],
                "result": "passes" if t["passed"] else "stops the walk",
            }
            for t in doc["tests"]
        ]
    )


def _queue(project: str, ids: list[str]) -> None:
    """Admins: the escalated items into one annotator's queue."""
    from annotation_store import StoreError
    from studies.assignments import assign

    store = get_store()
    names = [u.name for u in store.annotators()]
    if not names:
        st.caption("No annotator to queue them for yet (add one on the **Admin** page).")
        return
    cols = st.columns([2, 1])
    who = cols[0].selectbox("Annotator", names, key="escalate_annotator")
    if cols[1].button(f"Queue {len(ids)} item(s)", key="escalate_queue", disabled=not ids):
        try:
            n = assign(store, project, ids, who)
        except StoreError as exc:
            st.error(str(exc))
            return
        st.success(f"{n} item(s) put first in {who}'s queue ({len(ids) - n} were there already).")


def escalation_section(
    project: str,
    data_version: str,
    field: str,
    labels: list[str],
    default: int,
    inputs: FieldInputs | None = None,
) -> None:
    """The card: pick version, alpha, delta and confidence; threshold, coverage with the
    guarantee in words, agreement kept with its interval, the walk, the escalated items
    (``inputs``: the field's inputs the page already read, else read here)."""
    st.header("Escalation with a guarantee")
    cols = st.columns(4)
    label = cols[0].selectbox("Version", labels, index=default, key="escalate_version")
    alpha = cols[1].number_input(
        "α (disagreement allowed)", 0.01, 0.5, ALPHA, 0.01, key="escalate_alpha"
    )
    delta = cols[2].number_input(
        "δ (risk the bound fails)", 0.01, 0.5, DELTA, 0.01, key="escalate_delta"
    )
    source = cols[3].selectbox("Confidence", SOURCES, key="escalate_source")
    try:
        doc = _escalation(
            get_store().url,
            project,
            data_version,
            field,
            label,
            float(alpha),
            float(delta),
            source,
            inputs,
        )
    except AlignmentError as exc:
        st.caption(f"No escalation here: {exc}.")
        return
    a = doc["agreement"]
    m = st.columns(3)
    m[0].metric("Threshold", _fixed(doc["threshold"]))
    m[1].metric(
        "Coverage",
        "—" if doc["coverage"] is None else f"{doc['coverage']:.0%}",
        help=f"kept {doc['kept']} of {doc['n']} calibration items",
    )
    ci = a.get("ci")
    m[2].metric(
        "Agreement on kept items",
        _fixed(a["value"]),
        help=f"n {a['n']}" + (f", 95% exact interval [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""),
    )
    if ci:
        st.caption(
            f"Agreement on the kept items: {a['value']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}] (n {a['n']}, exact 95% interval)."
        )
    if doc["threshold"] is not None:
        st.info(doc["guarantee"], icon=":material/verified:")
    else:
        st.warning(doc["guarantee"])
    st.caption(
        f"Confidence: {doc['confidence']['definition']}. Agreement: {doc['rule']}. "
        "Thresholds are tried from 1.00 down in steps of 0.01; each is kept while the "
        f"binomial tail P(Bin(n, α) ≤ disagreements) is at most δ; the walk stops at the first that is not."
    )
    if doc["tests"]:
        st.dataframe(tests_frame(doc), hide_index=True, key="escalate_tests")
    sent = doc["escalated"]
    st.subheader(f"Sent to people: {len(sent)} of {doc['n_judged']} judged items")
    if sent:
        st.dataframe(pd.DataFrame(sent), hide_index=True, key="escalate_items")
    if has_role("admin"):
        _queue(project, [x["item_id"] for x in sent])
