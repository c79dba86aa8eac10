"""``run``: start the Streamlit app (what ``make run`` does, for an installed workbench)."""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from commands.numbers import port
from common.config import get_setting

APP_ROOT = Path(__file__).resolve().parent.parent
#: Where the app listens unless told otherwise: this machine only.
DEFAULT_ADDRESS = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
NETWORK_FLAG = "--single-user-on-network"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the run command."""
    p = sub.add_parser("run", help="start the app (Streamlit) on this database")
    p.add_argument("--port", type=port, default=None, help="port (default 8501)")
    p.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        help=f"address to listen on (default {DEFAULT_ADDRESS}: this machine only)",
    )
    p.add_argument(
        NETWORK_FLAG,
        action="store_true",
        help="allow single-user mode (no sign-in, everyone is admin) on another address",
    )
    p.add_argument("--demo", action="store_true", help="load the demo projects into an empty db")
    p.set_defaults(handler=cmd_run, no_store=True)


def config_flags(config_file: Path) -> list[str]:
    """The app's ``.streamlit/config.toml`` as ``--section.key=value`` flags.

    Streamlit reads that file from the working directory, which for an installed
    workbench is not where the file is; the flags carry the same settings."""
    if not config_file.is_file():
        return []
    with open(config_file, "rb") as fh:
        data: dict[str, Any] = tomllib.load(fh)
    return list(_flags(data, ""))


def _flags(table: dict[str, Any], prefix: str) -> Iterator[str]:
    for key, value in table.items():
        if isinstance(value, dict):  # nested tables: theme.light.primaryColor
            yield from _flags(value, f"{prefix}{key}.")
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            yield f"--{prefix}{key}={text}"


def streamlit_argv(args: argparse.Namespace) -> list[str]:
    """The ``streamlit run`` command line for the packaged app."""
    argv = [sys.executable, "-m", "streamlit", "run", str(APP_ROOT / "serve.py")]
    argv += config_flags(APP_ROOT / ".streamlit" / "config.toml")
    if args.port is not None:
        argv.append(f"--server.port={args.port}")
    argv.append(f"--server.address={args.address}")
    return argv


def single_user_mode() -> bool:
    """True when the app will run without sign-in (``[auth] mode`` unset or ``single``)."""
    mode = (get_setting("auth", "mode") or "single").strip().lower()
    return mode not in ("local", "oidc", "crowd")


def network_refusal(args: argparse.Namespace) -> str | None:
    """Why the app must not start as asked (single-user mode open to a network), else
    None; prints the warning when the flag allows it."""
    if args.address.strip().lower() in LOOPBACK or not single_user_mode():
        return None
    if not args.single_user_on_network:
        return (
            f"refusing to serve single-user mode (no sign-in, everyone is admin) on "
            f"{args.address}: set [auth] mode to local, oidc or crowd, or pass {NETWORK_FLAG}"
        )
    print(
        f"warning: single-user mode on {args.address}: there is no sign-in, so anyone "
        "who can reach this address is admin",
        file=sys.stderr,
    )
    return None


def cmd_run(args: argparse.Namespace, _store: object) -> int:
    """Replace this process with the Streamlit server (the database URL passes on)."""
    refused = network_refusal(args)
    if refused is not None:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    if args.db:
        os.environ["WORKBENCH_DB_URL"] = args.db
    if args.demo:
        from annotation_store import Store
        from workbench_api.demo import load_all

        store = Store(args.db)
        try:
            load_all(store, if_empty=True)
        finally:
            store.close()
    argv = streamlit_argv(args)
    sys.stdout.flush()
    os.execv(argv[0], argv)
    return 0  # not reached
