"""``kind``: task kinds declared in TOML files: create, edit (new version), list, show."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from commands import CommandError

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the kind command group."""
    p = sub.add_parser("kind", help="declared task kinds: create, edit, list, show")
    group = p.add_subparsers(dest="kind_command", required=True, metavar="ACTION")
    for action, text in (("create", "create a kind (version 1)"), ("edit", "add a version")):
        a = group.add_parser(action, help=f"{text} from a file")
        a.add_argument("kind", help="kind name (projects use it as decl:NAME)")
        a.add_argument(
            "--from",
            dest="source",
            required=True,
            help="the kind's TOML file (or a Label Studio XML config / Potato YAML)",
        )
        a.add_argument("--by", default=None, help="who made this version (recorded)")
        a.set_defaults(handler=cmd_save, new=action == "create")
    ls = group.add_parser("list", help="every declared kind with its latest version")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(handler=cmd_list)
    show = group.add_parser("show", help="one version of a declared kind")
    show.add_argument("kind", help="kind name")
    show.add_argument("--version", type=int, default=None, help="version (default: latest)")
    out = show.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--toml", action="store_true", help="print the TOML file, unchanged")
    show.set_defaults(handler=cmd_show)


def cmd_save(args: argparse.Namespace, store: Store) -> int:
    """Create or edit a declared kind from its file; print the version stored."""
    from kinds.declared import DeclarationError
    from kinds.kind_file import MAX_KIND_CHARS
    from workbench_api.kinds import read_kind_file, save_kind

    path = Path(args.source)
    if not path.is_file():
        raise CommandError(f"no such file: {path}")
    try:
        with path.open("rb") as fh:  # past the cap the read stops and the file is refused
            data = fh.read(4 * MAX_KIND_CHARS + 1)
        definition, losses = read_kind_file(path.name, data)
        record = save_kind(store, args.kind, definition, new=args.new, created_by=args.by)
    except DeclarationError as exc:
        raise CommandError(f"{path.name}: {exc}") from None
    for loss in losses:
        print(f"not carried over: {loss}")
    questions = [q["name"] for q in record.definition["questions"]]
    print(
        f"kind {record.name} version {record.version} saved ({len(questions)} questions: "
        f"{', '.join(questions)}); create a project with --kind {record.ref}"
    )
    return 0


def cmd_list(args: argparse.Namespace, store: Store) -> int:
    """One line (or JSON object) per declared kind: name, latest version, questions."""
    records = store.kind_records()
    if args.json:
        print(json.dumps([r.to_dict() for r in records], indent=2, sort_keys=True))
        return 0
    if not records:
        print("no declared kinds yet (python cli.py kind create NAME --from task.toml)")
    for r in records:
        questions = ", ".join(f"{q['name']} ({q['type']})" for q in r.definition["questions"])
        print(f"{r.ref}  {r.definition.get('title', r.name)}  {questions}")
    return 0


def cmd_show(args: argparse.Namespace, store: Store) -> int:
    """A version's definition: as stored (TOML), as JSON, or summarised."""
    record = store.kind_record(args.kind, args.version)
    if args.toml:
        print(record.source, end="" if record.source.endswith("\n") else "\n")
        return 0
    if args.json:
        print(json.dumps(record.to_dict(), indent=2, sort_keys=True))
        return 0
    d = record.definition
    print(f"kind {record.name} version {record.version}: {d.get('title', record.name)}")
    print(f"projects name it {record.ref}")
    for f in d["fields"]:
        flags = [w for w in ("output", "hidden") if f.get(w)]
        print(
            f"  field {f['name']} ({f.get('role', 'text')}{', ' + ', '.join(flags) if flags else ''})"
        )
    for q in d["questions"]:
        print(f"  question {q['name']} ({q['type']}): {q.get('prompt', q['name'])}")
    return 0
