"""Run a snippet in a fresh interpreter from the repository root and read back what it
printed last as JSON: what a new process imports or maps, untouched by the test run's
own imports."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def fresh_python(code: str) -> Any:
    """``python -c CODE`` (dedented) in the repository root; its last line of output,
    parsed as JSON. Fails the test if the snippet fails."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
