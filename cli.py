"""Command-line entry: ``python cli.py [--db URL] COMMAND ...`` or, installed, ``workbench``.

Each module in ``commands/`` adds its subcommands; the domain work happens in the
domain packages, exactly as in the app. Exit 0 on success; on failure one line on
stderr and a non-zero exit code.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import warnings

from commands import main
from common.redact import install_log_redaction


def _one_line_warning(message: Warning | str, category: type[Warning], *_: object) -> str:
    """Warnings (a broken plugin ...) as one line, without the source line that warned."""
    return f"warning: {message}\n"


def entry() -> None:
    """Run the command line on ``sys.argv`` and exit (the ``workbench`` console script)."""
    install_log_redaction()
    warnings.formatwarning = _one_line_warning
    # A broken plugin both logs (for the server log) and warns: on a terminal, once.
    logging.getLogger("common.registry").addHandler(logging.NullHandler())
    prog = "python cli.py" if sys.argv[0].endswith(".py") else os.path.basename(sys.argv[0])
    code = main(sys.argv[1:], prog=prog)
    # The process ends here. Freezing skips the interpreter's final full collection over
    # every object the libraries made (~0.3 s after a large agreement); objects are still
    # freed as usual and atexit handlers still run.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
