"""``demo``: load the demo projects (once)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the demo command."""
    p = sub.add_parser("demo", help="load the demo projects")
    p.add_argument(
        "--if-empty",
        action="store_true",
        help="only when the database has no project at all (used by make run)",
    )
    p.add_argument("--reset", action="store_true", help="delete and reload the demo projects")
    p.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace, store: Store) -> int:
    """Load the demo projects and say which were created."""
    from demo.loading import DEMO_PROJECTS
    from workbench_api.demo import load_all

    if args.reset:
        names = {p.name for p in store.projects()}
        for spec in DEMO_PROJECTS:
            if spec.name in names:
                store.delete_project(spec.name)
    created = load_all(store, if_empty=args.if_empty)
    print(
        f"demo projects loaded: {', '.join(created)}"
        if created
        else "demo projects already present (nothing loaded)"
    )
    return 0
