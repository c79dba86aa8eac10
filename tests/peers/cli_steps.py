"""Run several ``cli.py`` commands in one workbench process (each start costs seconds).

    .venv/bin/python tests/peers/cli_steps.py '[["--db", URL, "kind", "list"], ...]'

Prints a JSON list with each command's exit code, stdout and stderr, in order; stops
after the first command that fails.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(steps: list[list[str]]) -> list[dict[str, object]]:
    """Each command's ``rc``, ``out`` and ``err``."""
    from cli import main as cli

    done = []
    for argv in steps:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli(argv)
            except SystemExit as exc:  # argparse's own refusals
                rc = exc.code if isinstance(exc.code, int) else 2
        done.append({"rc": rc, "out": out.getvalue(), "err": err.getvalue()})
        if rc != 0:
            break
    return done


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
