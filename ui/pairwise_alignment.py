"""The Alignment page's section for a pairwise question: each judge version's agreement
with people's choices and its position figures (MT-Bench), every share with n and CI,
and the one-click swap probe run."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ui.probe_runs import probe_control


def _cell(x: dict[str, Any]) -> str:
    if x.get("value") is None:
        return f"— ({x.get('reason') or 'not measured'})"
    lo, hi = x["ci"]
    return f"{x['value']:.3f} [{lo:.3f}, {hi:.3f}] (n {x['n']})"


def pairwise_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per judge version: the shares as 'value [CI] (n)', or '—' with why."""
    rows = []
    for row in doc["versions"]:
        pos = row["position"]
        measured = bool(pos.get("n"))
        rows.append(
            {
                "version": row["label"],
                "verdict": row["verdict"],
                "agreement with ties": _cell(row["agreement"]["with_ties"]),
                "agreement without ties": _cell(row["agreement"]["without_ties"]),
                "position consistency": _cell(pos["consistency"])
                if measured
                else f"— ({pos['reason']})",
                "first position both times": _cell(pos["biased_first"]) if measured else "—",
                "second position both times": _cell(pos["biased_second"]) if measured else "—",
                "excluded": row["excluded"]["n"],
            }
        )
    return pd.DataFrame(rows)


def pairwise_section(project: str, doc: dict[str, Any]) -> None:
    """The table, how to read it and the swap probe control."""
    first, second = doc["outputs"]
    st.caption(
        f"**{doc['field']}** (pairwise question over {first} and {second}): one row per judge version."
    )
    # A static table (a few versions): every cell is text with its CI and n.
    st.table(pairwise_frame(doc).set_index("version"))
    st.caption(
        f"Each judge version is asked with the outputs in order ({first}, {second}) and, in "
        "its swap probe run, exchanged; verdicts are compared by content (MT-Bench). "
        "Position consistency: the share of pairs with the same verdict both times; first "
        "(second) position both times: the judge chose whatever was shown first (second) in "
        "both orders. The verdict compared with people is the conservative one: an "
        "inconsistent pair counts as a tie. Agreement: each person's choice against it, "
        "with ties, and without ties (pairs with a tie on either side left out). 95% "
        "Wilson intervals."
    )
    probe_control(project, doc["versions"])
