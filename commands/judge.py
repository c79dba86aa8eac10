"""``judge``: custom LLM judges from TOML files: create, edit (new version), list, show."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from commands import CommandError
from commands.numbers import positive_int

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the judge command group."""
    p = sub.add_parser("judge", help="custom LLM judges: create, edit, list, show")
    group = p.add_subparsers(dest="judge_command", required=True, metavar="ACTION")
    for action, text in (("create", "create a judge (version 1)"), ("edit", "add a version")):
        a = group.add_parser(action, help=f"{text} from a TOML file")
        a.add_argument("judge", help="judge name (results are signed judge:NAME)")
        a.add_argument("--from", dest="source", required=True, help="the judge's TOML file")
        a.add_argument("--by", default=None, help="who made this version (recorded)")
        a.set_defaults(handler=cmd_save, new=action == "create")
    ls = group.add_parser("list", help="every judge with its latest version")
    ls.add_argument("--project", default=None, help="only judges of this project's kind")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(handler=cmd_list)
    show = group.add_parser("show", help="one judge version's definition")
    show.add_argument("judge", help="judge name")
    show.add_argument(
        "--version", type=positive_int, default=None, help="version (default: latest)"
    )
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=cmd_show)
    auto = group.add_parser(
        "autocalibrate",
        help="a new version whose worked examples add items people corrected",
    )
    auto.add_argument("judge", help="judge name")
    auto.add_argument("--project", required=True, help="the project whose labels correct it")
    auto.add_argument("--items", default=None, help="comma-separated item ids to add")
    auto.add_argument("--suggest", action="store_true", help="list the items people disagree with")
    auto.add_argument("--version", type=int, default=None, help="version (default: latest)")
    auto.add_argument("--by", default=None, help="who made this version (recorded)")
    auto.set_defaults(handler=cmd_autocalibrate)


def _errors() -> tuple[type[Exception], ...]:
    from evaluators.judges.spec import JudgeError

    return (JudgeError,)


def cmd_save(args: argparse.Namespace, store: Store) -> int:
    """Create or edit a judge from its TOML file; print the version stored."""
    from workbench_api.judges import save_judge

    path = Path(args.source)
    if not path.is_file():
        raise CommandError(f"no such file: {path}")
    try:
        record = save_judge(
            store, args.judge, path.read_text(encoding="utf-8"), new=args.new, created_by=args.by
        )
    except _errors() as exc:
        raise CommandError(str(exc)) from None
    examples = len(record.definition.get("few_shot", {}).get("examples") or [])
    print(
        f"judge {record.name} version {record.version} saved "
        f"(kind {record.kind}, prompt {record.prompt_hash}"
        + (f", {examples} worked example(s)" if examples else "")
        + f"); run it with --evaluator {record.evaluator}"
    )
    return 0


def cmd_list(args: argparse.Namespace, store: Store) -> int:
    """One line (or JSON object) per judge: name, latest version, kind, fields."""
    records = store.judges(args.project)
    if args.json:
        print(json.dumps([r.to_dict() for r in records], indent=2, sort_keys=True))
        return 0
    if not records:
        print("no judges yet (python cli.py judge create NAME --from judge.toml)")
    for r in records:
        fields = ", ".join(r.definition.get("fields") or [])
        print(f"{r.name}  v{r.version}  {r.kind}  {fields}  prompt {r.prompt_hash}")
    return 0


def cmd_show(args: argparse.Namespace, store: Store) -> int:
    """A version's full definition (template, output, sampling, examples)."""
    record = store.judge(args.judge, args.version)
    doc = record.to_dict()
    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=True))
        return 0
    d = record.definition
    print(f"judge {record.name} version {record.version} ({record.kind})")
    print(f"evaluator {record.evaluator}@{record.version}  prompt {record.prompt_hash}")
    print(f"saved {doc['created_at']}" + (f" by {record.created_by}" if record.created_by else ""))
    print(f"scores: {', '.join(d['fields'])}; output: {json.dumps(d['output'], sort_keys=True)}")
    print(f"sampling: {json.dumps(d['sampling'], sort_keys=True)}; swap_texts: {d['swap_texts']}")
    ids = [e["item_id"] for e in d.get("few_shot", {}).get("examples") or []]
    if ids:
        print(f"worked examples: {', '.join(ids)}")
    if d.get("system"):
        print("--- system ---")
        print(d["system"])
    print("--- template ---")
    print(d["template"])
    return 0


def cmd_autocalibrate(args: argparse.Namespace, store: Store) -> int:
    """List correction candidates (--suggest) or save the autocalibrated version."""
    from alignment.inputs import AlignmentError
    from annotation_store import StoreError
    from workbench_api.autocalibration import autocalibrate, suggest_corrections

    try:
        if args.suggest or not args.items:
            found = suggest_corrections(store, args.project, args.judge, args.version)
            print(
                f"{len(found)} item(s) where people disagree with judge {args.judge}: "
                + (", ".join(found) or "none")
            )
            return 0
        record = autocalibrate(
            store,
            args.project,
            args.judge,
            args.items.split(","),
            version=args.version,
            created_by=args.by,
        )
    except (*_errors(), AlignmentError, StoreError) as exc:
        raise CommandError(str(exc)) from None
    ids = [e["item_id"] for e in record.definition["few_shot"]["examples"]]
    print(
        f"judge {record.name} version {record.version} saved with worked examples "
        f"{', '.join(ids)} (left out of its figures); run it with --evaluator {record.evaluator}"
    )
    return 0
