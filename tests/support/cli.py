"""Run ``cli.py`` as a script in a child process, the way a shell runs it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_cli_script(*args: str, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """``python cli.py ARGS`` from the repository root with exactly ``env``; output captured
    as text, at most two minutes."""
    return subprocess.run(
        [sys.executable, "cli.py", *args],
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=120,
    )
