"""``kinds``: the task kinds (registered, then the latest version of each declared
kind in the database), their fields, derived scores and evaluators."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``kinds`` command."""
    p = sub.add_parser(
        "kinds", help="list the task kinds (built-in and declared) with fields and evaluators"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_kinds, no_store=True)


def describe_kinds(store: Store | None = None) -> list[dict[str, Any]]:
    """Every registered kind as the registries see it, then (with a ``store``) the latest
    version of each declared kind under its ``decl:NAME@N`` name (JSON-ready)."""
    from evaluators.registry import evaluators_for_kind
    from kinds import kind_names
    from kinds.registry import KINDS

    def describe(kind: Any) -> dict[str, Any]:
        return {
            "name": kind.name,
            "title": kind.title,
            "item_fields": [f.name for f in kind.item_fields],
            "human_fields": {f.name: str(f.type) for f in kind.human_fields()},
            "derived_scores": [d.name for d in kind.derived_scores],
        }

    out = []
    for name in kind_names():
        row = KINDS.read(name, describe)  # a plugin that raises when read: a warning
        if row is not None:
            out.append({**row, "name": name, "evaluators": evaluators_for_kind(name)})
    for record in store.kind_records() if store is not None else []:
        row = describe(record.task_kind())
        out.append({**row, "evaluators": evaluators_for_kind(record.ref)})
    return out


def _existing_store(db: str | None) -> Store | None:
    """The database named by ``--db`` / ``WORKBENCH_DB_URL`` / secrets, or the default
    SQLite file when it exists: listing kinds never creates a database."""
    from common.config import DEFAULT_DB_PATH, database_url
    from workbench_api.data import open_store

    url = database_url(db)
    if url == f"sqlite:///{DEFAULT_DB_PATH}" and not DEFAULT_DB_PATH.is_file():
        return None
    return open_store(url)


def cmd_kinds(args: argparse.Namespace, store: Store | None) -> int:
    """Print the kinds."""
    store = store or _existing_store(getattr(args, "db", None))
    try:
        kinds = describe_kinds(store)
    finally:
        if store is not None:
            store.close()
    if args.json:
        print(json.dumps(kinds, indent=2))
        return 0
    for k in kinds:
        fields = ", ".join(f"{n} ({t})" for n, t in k["human_fields"].items())
        print(f"{k['name']}: {k['title']}")
        print(f"  items: {', '.join(k['item_fields'])}")
        print(f"  labels: {fields}")
        if k["derived_scores"]:
            print(f"  derived: {', '.join(k['derived_scores'])}")
        print(f"  evaluators: {', '.join(k['evaluators']) or 'none'}")
    return 0
