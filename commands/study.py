"""``study``: a project's crowd-study settings (JSON), gold items, flags and completions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commands import CommandError

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the study command."""
    p = sub.add_parser("study", help="crowd study flow: settings, gold items, flags, dashboard")
    p.add_argument("name", help="project name")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--show", action="store_true", help="print the study settings as JSON")
    what.add_argument("--set", metavar="FILE", help="replace the study settings from a JSON file")
    what.add_argument(
        "--gold",
        nargs=2,
        metavar=("ITEM", "ANSWERS"),
        help='mark an item gold: ANSWERS is JSON ({"field": value} or one value)',
    )
    what.add_argument("--ungold", metavar="ITEM", help="make a gold item ordinary again")
    what.add_argument("--flags", action="store_true", help="print the flagged workers as JSON")
    what.add_argument("--dashboard", action="store_true", help="print the study figures as JSON")
    what.add_argument(
        "--completions", metavar="FILE", help="write completion codes and bonus eligibility (CSV)"
    )
    p.set_defaults(handler=cmd_study)


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None


def cmd_study(args: argparse.Namespace, store: Store) -> int:
    """Show or change a project's study, or print its flags and figures."""
    from crowd import study_quality as crowd_quality
    from studies import flow_settings as study
    from studies import gold

    store.project(args.name)  # an unknown project fails here, with its name
    if args.set:
        raw = _read_json(args.set)
        if not isinstance(raw, dict):
            raise CommandError(f"{args.set}: the study settings must be a JSON object")
        study.set_study(store, args.name, raw)
        print(f"study settings of {args.name!r} saved")
        return 0
    if args.gold:
        item_id, text = args.gold
        stored = gold.set_gold(store, args.name, item_id, gold.answers_from_text(text))
        print(f"{item_id} is gold: {json.dumps(stored)}")
        return 0
    if args.ungold:
        was = gold.clear_gold(store, args.name, args.ungold)
        print(f"{args.ungold} is {'no longer' if was else 'not'} gold")
        return 0
    if args.flags:
        flags = crowd_quality.crowd_flags(store, args.name)
        print(json.dumps([f.__dict__ for f in flags], indent=2))
        return 0
    if args.dashboard:
        print(json.dumps(crowd_quality.dashboard(store, args.name), indent=2))
        return 0
    if args.completions:
        Path(args.completions).write_bytes(crowd_quality.completion_csv(store, args.name))
        print(f"wrote {args.completions}")
        return 0
    print(json.dumps(study.get_study(store, args.name), indent=2, ensure_ascii=False))
    return 0
