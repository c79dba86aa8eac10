"""``project create`` and ``projects``."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from commands import CommandError
from kinds import kind_names

if TYPE_CHECKING:
    from annotation_store import Store


class KindChoices:
    """argparse choices: the registered kinds, plus any ``decl:NAME[@N]`` (a declared
    kind, checked against the database when the project is made)."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name.startswith("decl:") or name in kind_names())

    def __iter__(self):  # what the usage error lists
        return iter([*kind_names(), "decl:NAME"])


def register(sub: argparse._SubParsersAction) -> None:
    """Add the project commands."""
    project = sub.add_parser("project", help="create or delete a project")
    psub = project.add_subparsers(dest="project_command", required=True, metavar="ACTION")
    create = psub.add_parser("create", help="create a project")
    create.add_argument("name")
    create.add_argument("--kind", required=True, choices=KindChoices(), metavar="KIND")
    create.add_argument("--settings", default=None, help="JSON, e.g. '{\"k\": 3}'")
    create.add_argument("--guideline-file", default=None, help="Markdown guideline to use")
    create.set_defaults(handler=cmd_create)
    delete = psub.add_parser("delete", help="delete a project and all its data")
    delete.add_argument("name")
    delete.set_defaults(handler=cmd_delete)
    listing = sub.add_parser("projects", help="list projects with counts")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=cmd_list, no_store=True)


def cmd_create(args: argparse.Namespace, store: Store) -> int:
    """Create a project."""
    from workbench_api.data import ApiError, create_project

    guideline = None
    if args.guideline_file:
        with open(args.guideline_file, encoding="utf-8") as fh:
            guideline = fh.read()
    try:
        info = create_project(store, args.name, args.kind, args.settings, guideline)
    except ApiError as exc:
        raise CommandError(f"--{exc}") from None
    print(f"created project {info.name!r} ({info.kind}, k={info.k})")
    return 0


def cmd_delete(args: argparse.Namespace, store: Store) -> int:
    """Delete a project."""
    store.delete_project(args.name)
    print(f"deleted project {args.name!r}")
    return 0


def cmd_list(args: argparse.Namespace, store: Store) -> int:
    """List projects with item, annotator, label and result counts."""
    from workbench_api.data import projects

    rows = projects(args.db)
    if args.json:
        print(json.dumps([r.__dict__ for r in rows], indent=2))
        return 0
    if not rows:
        print(f"no projects yet: {args.prog} project create NAME --kind KIND")
        return 0
    header = f"{'project':<28}{'kind':<24}{'items':>7}{'people':>8}{'submitted':>11}{'drafts':>8}{'results':>9}"
    print(header)
    for r in rows:
        print(
            f"{r.name:<28}{r.kind:<24}{r.items:>7}{r.annotators:>8}{r.submitted_labels:>11}"
            f"{r.draft_labels:>8}{r.evaluator_results:>9}"
        )
    return 0
