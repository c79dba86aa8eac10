"""The example notebook runs top to bottom against a fresh database and gets real values.

Its code cells are executed in order in one namespace (what a kernel does; no Jupyter
kernel is installed for the tests), in a temporary working directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import plotly.graph_objects as go
import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "notebook.ipynb"


def run_notebook(path: Path) -> dict:
    """Execute the notebook's code cells; returns the namespace."""
    cells = json.loads(path.read_text())["cells"]
    namespace: dict = {"__name__": "__main__"}
    for number, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            exec(compile(source, f"{path.name}[{number}]", "exec"), namespace)
    return namespace


def test_the_example_notebook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    ns = run_notebook(NOTEBOOK)
    votes = np.array([[1 if v == "yes" else 0 for v in values] for values in ns["votes"].values()])
    expected = krippendorff.alpha(reliability_data=votes, level_of_measurement="nominal")
    assert ns["alpha"] == pytest.approx(expected, abs=1e-9)
    row = ns["frames"]["agreement"].query(
        "field == 'match' and statistic == 'krippendorff_alpha' and level == 'nominal'"
    )
    assert row["value"].tolist() == [pytest.approx(expected, abs=1e-9)]
    assert ns["progress"].done == 6 and ns["progress"].failed == 0
    assert -1 <= ns["chrf_vs_people"] <= 1
    assert isinstance(ns["figures"]["reliability"], go.Figure)
    report = tmp_path / "intents-report.html"
    assert report.is_file() and "intents" in report.read_text()
    assert (tmp_path / "notebook.db").is_file()
    # A second run (Run all again) reuses the project and changes nothing.
    again = run_notebook(NOTEBOOK)
    assert again["alpha"] == ns["alpha"]
