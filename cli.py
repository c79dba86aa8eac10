"""Command-line entry: ``python cli.py [--db URL] COMMAND ...`` or, installed, ``workbench``.

Each module in ``commands/`` adds its subcommands; the domain work happens in the
domain packages, exactly as in the app. Exit 0 on success; on failure one line on
stderr and a non-zero exit code.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence


def _one_line_warning(message: Warning | str, category: type[Warning], *_: object) -> str:
    """Warnings (a broken plugin ...) as one line, without the source line that warned."""
    return f"warning: {message}\n"


def _one_blas_thread() -> None:
    """Run numpy's BLAS on one thread unless the user set ``OPENBLAS_NUM_THREADS``.

    The commands' matrix products are small and memory-bound: a second OpenBLAS thread
    mostly spins: 0.2-0.5 s more CPU per ``agreement`` on the 10k bench with two, and
    no wall time gained that the machine's load does not swamp; the floats are the same.
    Read when numpy loads, so this runs before any command is imported.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str], prog: str = "python cli.py") -> int:
    """``commands.main``, imported on first call (so ``--version`` imports no command)."""
    from commands import main as run

    return run(argv, prog=prog)


def entry() -> None:
    """Run the command line on ``sys.argv`` and exit (the ``workbench`` console script)."""
    prog = "python cli.py" if sys.argv[0].endswith(".py") else os.path.basename(sys.argv[0])
    if sys.argv[1:] == ["--version"]:  # before anything else is imported: a quick answer
        from common.version import __version__

        print(f"{prog} {__version__}")
        sys.exit(0)
    _one_blas_thread()
    import logging
    import warnings

    from common.package import own_module
    from common.redact import install_log_redaction

    install_log_redaction()
    warnings.formatwarning = _one_line_warning
    # A broken plugin both logs (for the server log) and warns: on a terminal, once.
    logging.getLogger(own_module("common.registry")).addHandler(logging.NullHandler())
    try:
        code = main(sys.argv[1:], prog=prog)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``workbench agreement ... | head``): not an error of ours,
        # and no traceback. stdout points at devnull so the exit's flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141  # what a shell reports for a pipeline writer ended by SIGPIPE
    # The process ends here. Freezing skips the interpreter's final full collection over
    # every object the libraries made (~0.3 s after a large agreement); objects are still
    # freed as usual and atexit handlers still run.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
