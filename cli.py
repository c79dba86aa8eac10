"""Command-line entry: ``python cli.py [--db URL] COMMAND ...``.

Each module in ``commands/`` adds its subcommands; the domain work happens in the
domain packages, exactly as in the app. Exit 0 on success; on failure one line on
stderr and a non-zero exit code.
"""

from __future__ import annotations

import sys

from commands import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
