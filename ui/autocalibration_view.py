"""The Alignment page's autocalibration control: items where people corrected a judge
version become worked examples of its next version (one click)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from evaluators.judges.spec import JudgeError
from ui.context import current_user, get_store
from workbench_api.autocalibration import autocalibrate, corrected_items


def autocalibration_control(
    project: str, row: dict[str, Any], diff: pd.DataFrame, binary: bool, step: float = 1.0
) -> None:
    """For the diff's "to" version of a stored judge: pick corrected items (``step``: how
    far a score must be from the people's, one step of the scale), save them as worked
    examples of a new version."""
    if not row["evaluator"].startswith("judge:") or not row["version"].isdigit():
        return
    st.subheader("Autocalibrate")
    found = corrected_items(diff, binary, step)
    if not found:
        st.caption(
            f"The people decide as {row['label']} does on every item of the diff."
            if binary
            else f"No item of the diff where {row['label']} is a step of the scale "
            f"({step:g}) or more from the people."
        )
        return
    picked = st.multiselect(
        f"Items where people corrected {row['label']}: worked examples of a new version",
        found,
        key="alignment_autocal_items",
    )
    if st.button(
        "Save a new version with these worked examples",
        key="alignment_autocal_save",
        disabled=not picked,
    ):
        try:
            record = autocalibrate(
                get_store(),
                project,
                row["evaluator"].removeprefix("judge:"),
                picked,
                version=int(row["version"]),
                created_by=current_user().name,
            )
        except (JudgeError, ValueError) as exc:
            st.error(str(exc))
            return
        st.success(
            f"{record.evaluator} version {record.version} saved with "
            f"{len(record.definition['few_shot']['examples'])} worked example(s); run it on "
            "the Evaluate page (its examples are left out of its figures)."
        )
