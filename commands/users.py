"""``user add``, ``user list``, ``user set-role``, ``user set-password``: local accounts."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from annotation_store.records import ROLES
from commands import CommandError

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the user commands."""
    user = sub.add_parser("user", help="manage users (local accounts and OIDC e-mails)")
    usub = user.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    add = usub.add_parser("add", help="create a user")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, default="annotator")
    secret = add.add_mutually_exclusive_group()
    secret.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of stdin",
    )
    secret.add_argument("--password", help="the password (visible in shell history)")
    add.add_argument("--email", help="e-mail an OIDC sign-in maps to")
    add.set_defaults(handler=cmd_add)
    listing = usub.add_parser("list", help="list users")
    listing.set_defaults(handler=cmd_list)
    role = usub.add_parser("set-role", help="change a user's role")
    role.add_argument("name")
    role.add_argument("role", choices=ROLES)
    role.set_defaults(handler=cmd_set_role)
    pw = usub.add_parser("set-password", help="replace a password (read from stdin)")
    pw.add_argument("name")
    pw.set_defaults(handler=cmd_set_password)


def _stdin_password() -> str:
    line = sys.stdin.readline().rstrip("\r\n")
    if not line:
        raise CommandError("no password on stdin")
    return line


def cmd_add(args: argparse.Namespace, store: Store) -> int:
    """Create a user."""
    from accounts import users as accounts

    password = _stdin_password() if args.password_stdin else args.password
    before = store.annotator(args.name.strip())
    info = accounts.add_user(store, args.name, args.role, password=password, email=args.email)
    extra = " with a password" if info.has_password else ""
    if before is not None and before.external:
        print(f"turned external rater {info.name!r} into a user ({info.role}){extra}")
    else:
        print(f"created user {info.name!r} ({info.role}){extra}")
    return 0


def cmd_list(args: argparse.Namespace, store: Store) -> int:
    """List users with role, e-mail and whether they have a password (or are external)."""
    for u in store.annotators():
        pw = "external rater" if u.external else ("password" if u.has_password else "-")
        print(f"{u.name}\t{u.role}\t{u.email or '-'}\t{pw}")
    return 0


def cmd_set_role(args: argparse.Namespace, store: Store) -> int:
    """Change a user's role."""
    info = store.set_role(args.name, args.role)
    print(f"{info.name}: role {info.role}")
    return 0


def cmd_set_password(args: argparse.Namespace, store: Store) -> int:
    """Replace a user's password."""
    from accounts import users as accounts

    accounts.set_password(store, args.name, _stdin_password())
    print(f"{args.name}: password changed")
    return 0
