"""The example notebook runs top to bottom in a real Jupyter kernel and gets real values.

nbclient starts an ipykernel on the shared venv's python (a kernelspec written for the
test, so whatever ``python`` is on PATH does not matter) with the worktree on PYTHONPATH,
in a temporary working directory (tests/test_packaging.py runs it again on the built
wheel in a fresh venv, beside a user's own ``common.py`` and ``app.py``). Cells run inside the kernel's running event loop, which
is what broke ``wb.evaluate`` before (``Runner.run() cannot be called from a running
event loop``); executing the cells with ``exec`` cannot see that.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import krippendorff
import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"
KERNEL = "workbench-test"

# Runs after the notebook's own cells (twice: "Run all" again), inside the kernel.
FIRST_PASS = "first_alpha = alpha"
PROBE = """
import asyncio, json
try:
    asyncio.get_running_loop()
    loop_running = True
except RuntimeError:
    loop_running = False
row = frames["agreement"].query(
    "field == 'match' and statistic == 'krippendorff_alpha' and level == 'nominal'"
)
print(json.dumps({
    "loop_running": loop_running,
    "alpha": alpha,
    "first_alpha": first_alpha,
    "frame_alpha": row["value"].tolist(),
    "done": progress.done,
    "failed": progress.failed,
    "chrf_vs_people": chrf_vs_people,
    "figure": type(figures["reliability"]).__module__ + "." + type(figures["reliability"]).__name__,
    "votes": votes,
}))
"""


def kernelspec(base: Path, python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernelspec on ``python`` under ``base``, found first (JUPYTER_PATH)."""
    spec = base / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(base / "jupyter"))


@pytest.fixture
def kernel_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kernelspec on this interpreter, the clone on its path; the notebook's working dir."""
    kernelspec(tmp_path, sys.executable, monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    work = tmp_path / "work"
    work.mkdir()
    return work


def run_in_kernel(work: Path, probe: str = PROBE, again: bool = True) -> dict:
    """Execute the notebook (then, with ``again``, all its code cells a second time), then
    ``probe``, whose printed JSON is returned."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"] if again else []
    first = [nbformat.v4.new_code_cell(FIRST_PASS)] if again else []
    extra = [*first, *code, nbformat.v4.new_code_cell(probe)]
    nb.cells = [*nb.cells, *[nbformat.from_dict(dict(cell)) for cell in extra]]
    client = NotebookClient(
        nb, timeout=300, kernel_name=KERNEL, resources={"metadata": {"path": str(work)}}
    )
    client.execute()
    outputs = nb.cells[-1].outputs
    text = "".join(out.get("text", "") for out in outputs if out.output_type == "stream")
    return json.loads(text)


def test_the_example_notebook_runs_in_a_real_kernel(kernel_env: Path) -> None:
    seen = run_in_kernel(kernel_env)
    assert seen["loop_running"] is True  # the case that used to fail
    votes = np.array(
        [[1 if v == "yes" else 0 for v in values] for values in seen["votes"].values()]
    )
    expected = krippendorff.alpha(reliability_data=votes, level_of_measurement="nominal")
    assert seen["alpha"] == pytest.approx(expected, abs=1e-9)
    assert seen["frame_alpha"] == [pytest.approx(expected, abs=1e-9)]
    assert seen["done"] == 6 and seen["failed"] == 0
    assert -1 <= seen["chrf_vs_people"] <= 1
    assert seen["figure"] == "plotly.graph_objs._figure.Figure"
    report = kernel_env / "intents-report.html"
    assert report.is_file() and "intents" in report.read_text()
    assert (kernel_env / "notebook.db").is_file()
    # Run all again reuses the project; the evaluator's second run has nothing new to do.
    assert seen["first_alpha"] == seen["alpha"]
