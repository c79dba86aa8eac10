"""CLI subcommands. Every module here defines ``register(subparsers)``; discovery is automatic.

A command handler takes ``(args, store)`` and returns an exit code. Raise
:class:`CommandError` (or a validation error) for a clean one-line failure.
Command modules import their heavy libraries (pandas, SciPy, the evaluators) inside the
handlers, so building the parser stays cheap and ``--version`` or ``projects`` answer at
once; ``bench/cli_startup.py`` prints how long they take.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from common.registry import UnknownEntryError
from common.version import __version__
from kinds import ValidationError

if TYPE_CHECKING:
    from annotation_store import Store

Handler = Callable[[argparse.Namespace, "Store"], int]


class CommandError(Exception):
    """A failure to report as one line on stderr."""


def expected_errors() -> tuple[type[BaseException], ...]:
    """Errors shown as one line (anything else is a bug and keeps its traceback)."""
    from annotation_store import StoreError
    from evaluators.base import NotConfiguredError
    from workbench_api.data import ApiError

    return (
        ApiError,
        CommandError,
        StoreError,
        ValidationError,
        UnknownEntryError,
        FileNotFoundError,
        NotConfiguredError,
    )


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line on stderr (exit 2), like every other error.

    Subcommand parsers are made with the parent's class, so this covers them too.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(prog: str = "python cli.py") -> argparse.ArgumentParser:
    """The full parser with every command module's subcommands."""
    parser = _Parser(prog=prog, description="Metric-audit workbench, headless.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--db", help="SQLAlchemy URL (default: WORKBENCH_DB_URL or sqlite:///data/workbench.db)"
    )
    parser.set_defaults(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    _db_anywhere(sub)
    return parser


def _db_anywhere(sub: argparse._SubParsersAction) -> None:
    """Accept ``--db`` after the command too (``workbench projects --db URL``)."""
    for command in sub.choices.values():
        nested = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            _db_anywhere(nested[0])
        else:
            command.add_argument("--db", default=argparse.SUPPRESS, help="as before the command")


def _open_store(url: str | None) -> Store:
    """Open the store with Python's cyclic garbage collector paused.

    Opening it imports SQLAlchemy, pandas and the models: a few hundred thousand
    objects that live as long as the process, and the collections their allocation
    triggers would walk them again and again (a few tenths of a second of CPU per
    process). Imports leave next to no cyclic garbage, so what they created is frozen
    (``gc.freeze``: later collections skip it) and the collector is back on for the
    command. Values are not affected.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        from workbench_api.data import open_store

        return open_store(url)
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


def main(argv: Sequence[str], prog: str = "python cli.py") -> int:
    """Parse ``argv``, open the store and run the chosen command."""
    if list(argv) == ["--version"]:  # answered before any command module is imported
        print(f"{prog} {__version__}")
        return 0
    args = build_parser(prog).parse_args(list(argv))
    handler: Handler = args.handler
    store = None
    try:
        if getattr(args, "no_store", False):  # the command opens what it needs itself
            return handler(args, None)  # type: ignore[arg-type]
        store = _open_store(args.db)
        for line in store.recovered_imports:  # a killed import, undone at this start
            print(f"note: {line}", file=sys.stderr)
        return handler(args, store)
    except expected_errors() as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if store is not None:
            store.close()
