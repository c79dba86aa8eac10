"""CLI subcommands. Every module here defines ``register(subparsers)``; discovery is automatic.

A command handler takes ``(args, store)`` and returns an exit code. Raise
:class:`CommandError` (or a validation error) for a clean one-line failure.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from annotation_store import Store, StoreError
from common.registry import UnknownEntryError
from kinds import ValidationError

Handler = Callable[[argparse.Namespace, Store], int]


class CommandError(Exception):
    """A failure to report as one line on stderr."""


#: Errors shown as one line (anything else is a bug and keeps its traceback).
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    CommandError,
    StoreError,
    ValidationError,
    UnknownEntryError,
    FileNotFoundError,
)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line on stderr (exit 2), like every other error.

    Subcommand parsers are made with the parent's class, so this covers them too.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every command module's subcommands."""
    parser = _Parser(prog="python cli.py", description="Metric-audit workbench, headless.")
    parser.add_argument(
        "--db", help="SQLAlchemy URL (default: WORKBENCH_DB_URL or sqlite:///data/workbench.db)"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str]) -> int:
    """Parse ``argv``, open the store and run the chosen command."""
    args = build_parser().parse_args(list(argv))
    handler: Handler = args.handler
    store = None
    try:
        from evaluators.base import NotConfiguredError

        store = Store(args.db)
        return handler(args, store)
    except (*EXPECTED_ERRORS, NotConfiguredError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if store is not None:
            store.close()
