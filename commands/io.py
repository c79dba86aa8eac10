"""``import`` and ``export`` of items, labels and scores (native or another tool's format),
SGD dialogues in, and the agreement bundle out."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from commands import CommandError
from commands.numbers import count, positive_int
from interop import EXPORT_FORMATS, FORMATS

if TYPE_CHECKING:
    from annotation_store import Store

WHATS = ("items", "annotations", "scores")
# %(choices)s: the formats are listed when help is shown (plugins load then), not on start
FORMAT_HELP = (
    "another tool's format: %(choices)s "
    "(default: the workbench's own CSV / JSONL / Parquet, by suffix)"
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the import and export commands."""
    imp = sub.add_parser("import", help="import items, annotations, scores or SGD dialogues")
    isub = imp.add_subparsers(dest="what", required=True, metavar="WHAT")
    for what in WHATS:
        p = isub.add_parser(what, help=f"import {what} from CSV / JSONL or another tool")
        p.add_argument("name", help="project name")
        p.add_argument(
            "file", help="a .csv, .tsv, .jsonl or .parquet file (or the tool's file / folder)"
        )
        p.add_argument(
            "--format", choices=FORMATS, metavar="FORMAT", default=None, help=FORMAT_HELP
        )
        p.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="THEIRS=OURS",
            help="rename one of the file's field / column names to the project's (repeatable)",
        )
        p.set_defaults(handler=cmd_import)
    sgd = isub.add_parser("sgd", help="import SGD dialogues into a dialogue-faithfulness project")
    sgd.add_argument("name", help="project name (created if missing)")
    sgd.add_argument("dir", help="an SGD split folder (schema.json + dialogues_*.json) or root")
    sgd.add_argument(
        "--negatives",
        action="store_true",
        help="also add tampered copies with substituted slot values",
    )
    sgd.add_argument("--limit", type=positive_int, default=None, help="at most N items")
    sgd.set_defaults(handler=cmd_import_sgd)

    exp = sub.add_parser("export", help="export items, annotations, scores or agreement")
    esub = exp.add_subparsers(dest="what", required=True, metavar="WHAT")
    for what in WHATS:
        p = esub.add_parser(what, help=f"export {what} as CSV / JSONL / Parquet or for a tool")
        p.add_argument("name", help="project name")
        p.add_argument("--out", required=True, help="output file: .csv, .jsonl or .parquet")
        p.add_argument(
            "--format", choices=EXPORT_FORMATS, metavar="FORMAT", default=None, help=FORMAT_HELP
        )
        p.set_defaults(handler=cmd_export)
    bundle = esub.add_parser(
        "agreement", help="agreement results and per-item disagreements (Parquet + CSV)"
    )
    bundle.add_argument("name", help="project name")
    bundle.add_argument("--out", required=True, help="output folder")
    bundle.add_argument("--resamples", type=count, default=DEFAULT_RESAMPLES)
    bundle.add_argument("--seed", type=count, default=DEFAULT_SEED)
    bundle.add_argument(
        "--metaeval",
        action="store_true",
        help="include the meta-evaluation's rows the project names (setting 'metaeval')",
    )
    bundle.set_defaults(handler=cmd_export_agreement)


def cmd_import(args: argparse.Namespace, store: Store) -> int:
    """Validate the whole file, then import it in one go (nothing on a bad row)."""
    from interop.base import parse_mapping
    from interop.importing import PROGRESS_EVERY, ImportFailure
    from workbench_api.data import import_file

    def progress(done: int, total: int, phase: str) -> None:
        if total >= PROGRESS_EVERY:  # small files import in a blink: no progress lines
            print(f"{phase}: {done:,} / {total:,} rows", file=sys.stderr, flush=True)

    try:
        mapping = parse_mapping(args.map)
    except ValueError as exc:
        raise CommandError(f"nothing imported: {exc}") from None
    try:
        reports = import_file(
            store,
            args.name,
            args.what,
            args.file,
            args.format,
            on_progress=progress,
            mapping=mapping,
        )
    except ImportFailure as exc:
        raise CommandError(f"nothing imported: {exc}") from None
    for what, report in reports.items():
        print(report.summary(what))
        for note in report.notes:
            print(f"  note: {note}")
    return 0


def cmd_import_sgd(args: argparse.Namespace, store: Store) -> int:
    """Import SGD system acts as dialogue-faithfulness items."""
    from interop.sgd import import_sgd

    report = import_sgd(store, args.name, args.dir, negatives=args.negatives, limit=args.limit)
    print(report.summary("sgd items"))
    return 0


def cmd_export(args: argparse.Namespace, store: Store) -> int:
    """Write the export file."""
    from workbench_api.data import export_file

    try:
        notes: list[str] = []
        n = export_file(store, args.name, args.what, args.out, args.format, notes=notes)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    unit = {"label-studio": "tasks", "argilla": "records"}.get(args.format or "", "rows")
    print(f"exported {n} {args.what} {unit} to {args.out}")
    for note in notes:
        print(f"  note: {note}")
    return 0


def cmd_export_agreement(args: argparse.Namespace, store: Store) -> int:
    """Write the agreement bundle."""
    from workbench_api.analysis import export_agreement_bundle

    paths = export_agreement_bundle(
        store,
        args.name,
        args.out,
        resamples=args.resamples,
        seed=args.seed,
        metaeval=args.metaeval,
    )
    print(f"wrote {', '.join(p.name for p in paths)} to {args.out}")
    return 0
