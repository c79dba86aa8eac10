"""The contract tests' one fixture: the workbench's exports of every demo and example
project in every format, written by the workbench's own venv (``WB_PYTHON``, default
``.venv/bin/python``) in a separate process; these tests run in .venv-peers."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WB_PYTHON = os.environ.get("WB_PYTHON", str(ROOT / ".venv" / "bin" / "python"))


@dataclass(frozen=True)
class Export:
    """One export the workbench wrote (or refused: ``error``)."""

    project: str
    kind: str
    format: str
    what: str
    path: Path | None
    count: int
    notes: tuple[str, ...]
    error: str | None


def run_workbench(*args: str) -> subprocess.CompletedProcess:
    """Run a script or ``cli.py`` in the workbench's venv; fails the test on a crash."""
    return subprocess.run([WB_PYTHON, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def exports(tmp_path_factory: pytest.TempPathFactory) -> list[Export]:
    """Every (project, format, what) the workbench writes, once per run."""
    out = tmp_path_factory.mktemp("exports")
    done = run_workbench(str(ROOT / "tests" / "peers" / "export_all.py"), str(out))
    assert done.returncode == 0, done.stderr
    rows = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return [
        Export(
            r["project"],
            r["kind"],
            r["format"],
            r["what"],
            Path(r["path"]) if r["path"] else None,
            r["count"],
            tuple(r["notes"]),
            r["error"],
        )
        for r in rows
    ]


def of_format(exports: list[Export], fmt: str) -> list[Export]:
    """The written exports of one format (refusals left out)."""
    return [e for e in exports if e.format == fmt and e.path is not None]
