"""``import`` and ``export`` of items, labels and scores (and SGD dialogues)."""

from __future__ import annotations

import argparse

from annotation_store import Store
from annotation_store.exporting import FRAMES, export
from annotation_store.importing import IMPORTERS, ImportFailure
from commands import CommandError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the import and export commands."""
    imp = sub.add_parser("import", help="import items, annotations, scores or SGD dialogues")
    isub = imp.add_subparsers(dest="what", required=True, metavar="WHAT")
    for what in IMPORTERS:
        p = isub.add_parser(what, help=f"import {what} from CSV / JSONL")
        p.add_argument("name", help="project name")
        p.add_argument("file", help="a .csv, .tsv or .jsonl file")
        p.set_defaults(handler=cmd_import)
    sgd = isub.add_parser("sgd", help="import SGD dialogues into a dialogue-faithfulness project")
    sgd.add_argument("name", help="project name (created if missing)")
    sgd.add_argument("dir", help="an SGD split folder (schema.json + dialogues_*.json) or root")
    sgd.add_argument(
        "--negatives",
        action="store_true",
        help="also add tampered copies with substituted slot values",
    )
    sgd.add_argument("--limit", type=int, default=None, help="at most N items")
    sgd.set_defaults(handler=cmd_import_sgd)

    exp = sub.add_parser("export", help="export items, annotations or scores")
    esub = exp.add_subparsers(dest="what", required=True, metavar="WHAT")
    for what in FRAMES:
        p = esub.add_parser(what, help=f"export {what} as CSV / JSONL / Parquet")
        p.add_argument("name", help="project name")
        p.add_argument("--out", required=True, help="output file: .csv, .jsonl or .parquet")
        p.set_defaults(handler=cmd_export)


def cmd_import(args: argparse.Namespace, store: Store) -> int:
    """Validate the whole file, then import it in one transaction."""
    try:
        report = IMPORTERS[args.what](store, args.name, args.file)
    except ImportFailure as exc:
        raise CommandError(f"nothing imported: {exc}") from None
    print(report.summary(args.what))
    return 0


def cmd_import_sgd(args: argparse.Namespace, store: Store) -> int:
    """Import SGD system acts as dialogue-faithfulness items."""
    from annotation_store.sgd import import_sgd

    report = import_sgd(store, args.name, args.dir, negatives=args.negatives, limit=args.limit)
    print(report.summary("sgd items"))
    return 0


def cmd_export(args: argparse.Namespace, store: Store) -> int:
    """Write the export file."""
    try:
        n = export(store, args.name, args.what, args.out)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    print(f"exported {n} {args.what} rows to {args.out}")
    return 0
