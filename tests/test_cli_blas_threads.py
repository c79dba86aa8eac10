"""The command line runs BLAS on one thread unless the user chose a number."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cli

ROOT = Path(__file__).resolve().parents[1]


def test_one_thread_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    cli._one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_the_users_choice_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    cli._one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


def test_set_before_numpy_loads() -> None:
    # entry() sets it before importing any command, so numpy's OpenBLAS reads it
    code = (
        "import sys, cli; sys.argv = ['cli.py', 'projects']; "
        "cli.main = lambda argv, prog: print('numpy' in sys.modules, "
        "__import__('os').environ['OPENBLAS_NUM_THREADS']) or 0; cli.entry()"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert out.stdout.split() == ["False", "1"], out.stderr


def test_the_app_server_runs_one_blas_thread_too() -> None:
    """``streamlit run serve.py`` (the e2e harness and the benches start it so) gets the
    one thread ``make run`` gets through cli.py: the module sets it before numpy loads."""
    code = (
        "import sys, serve, numpy, threadpoolctl; "
        "print('numpy' in sys.modules, __import__('os').environ['OPENBLAS_NUM_THREADS'], "
        "[p['num_threads'] for p in threadpoolctl.threadpool_info() "
        "if p['internal_api'] == 'openblas'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert out.stdout.split("\n")[-2] == "True 1 [1]", out.stderr
