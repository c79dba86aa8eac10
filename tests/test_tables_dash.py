"""ui.tables.dash_missing: missing cells read "—", whatever the column's dtype."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from agreement.statistics import DASH
from ui.tables import dash_missing


def test_missing_cells_of_typed_and_object_columns_read_a_dash() -> None:
    frame = pd.DataFrame(
        {
            "score": [0.5, np.nan, 0.25],
            "n": [1, 2, 3],
            "when": pd.to_datetime(["2026-01-01", None, "2026-01-03"]),
            "labels": [["a", "b"], None, []],
        }
    )
    config = {"score": st.column_config.NumberColumn("score", format="%.2f")}
    out, cfg = dash_missing(frame, config, {"score": "no score", "labels": "not labelled"})
    assert out["score"].tolist() == ["0.50", DASH, "0.25"]
    assert out["n"].tolist() == [1, 2, 3] and "n" not in cfg
    assert out["when"].tolist()[1] == DASH
    assert out["labels"].tolist() == ["['a', 'b']", DASH, "[]"]
    assert cfg["score"]["help"] == f"{DASH}: no score"
    assert cfg["labels"]["help"] == f"{DASH}: not labelled"
