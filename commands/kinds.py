"""``kinds``: the registered task kinds, their fields, derived scores and evaluators."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``kinds`` command."""
    p = sub.add_parser("kinds", help="list the task kinds with their fields and evaluators")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_kinds, no_store=True)


def describe_kinds() -> list[dict[str, Any]]:
    """Every registered kind as the registries see it (JSON-ready)."""
    from evaluators.registry import evaluators_for_kind
    from kinds import kind_names
    from kinds.registry import KINDS

    def describe(kind: Any) -> dict[str, Any]:
        return {
            "name": kind.name,
            "title": kind.title,
            "item_fields": [f.name for f in kind.item_fields],
            "human_fields": {f.name: f.type.value for f in kind.human_fields()},
            "derived_scores": [d.name for d in kind.derived_scores],
        }

    out = []
    for name in kind_names():
        row = KINDS.read(name, describe)  # a plugin that raises when read: a warning
        if row is not None:
            out.append({**row, "name": name, "evaluators": evaluators_for_kind(name)})
    return out


def cmd_kinds(args: argparse.Namespace, store: Store) -> int:
    """Print the kinds."""
    kinds = describe_kinds()
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
