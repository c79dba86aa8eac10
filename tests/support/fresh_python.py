"""Run a snippet in a fresh interpreter from the repository root and read back what it
printed last as JSON: what a new process imports or maps, untouched by the test run's
own imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def fresh_python(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> Any:
    """``python -c CODE`` (dedented) in the repository root, with ``env`` added to this
    process's environment; its last line of output, parsed as JSON. Fails the test if the
    snippet fails."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, **env} if env else None,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
