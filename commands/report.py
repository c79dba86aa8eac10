"""``report``: the agreement report as HTML, Markdown or JSON, with reliability CSVs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from commands import CommandError
from commands.agreement import add_reference_option
from commands.numbers import count
from reports.formats import FORMATS, format_of

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the report command."""
    p = sub.add_parser("report", help="write the agreement report (HTML, Markdown, JSON)")
    p.add_argument("name", help="project name")
    p.add_argument("--out", required=True, help="output file: .html, .md or .json")
    p.add_argument("--format", choices=FORMATS, default=None, help="override the suffix")
    p.add_argument("--items", default=None, help="comma-separated item ids to drill down")
    p.add_argument("--resamples", type=count, default=DEFAULT_RESAMPLES)
    p.add_argument("--seed", type=count, default=DEFAULT_SEED)
    add_reference_option(p)
    p.add_argument(
        "--plan-target",
        type=float,
        default=0.05,
        help="half-width the estimates section plans human labels for (default 0.05)",
    )
    p.set_defaults(handler=cmd_report)


def check_out(path: str) -> None:
    """Refuse, before any work, an ``--out`` that cannot be written: a folder, or a file
    under something that is not a folder or not writable. Missing folders are made when
    the report is written."""
    out = Path(path)
    if out.is_dir():
        raise CommandError(f"--out {path!r} is a folder: name the report file in it")
    base = out.parent
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise CommandError(f"cannot write {path!r}: {str(base)!r} is not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write {path!r}: no permission to write in {str(base)!r}")


def cmd_report(args: argparse.Namespace, store: Store) -> int:
    """Build and write the report."""
    from reports.render import build_report, write_report  # heavy: imported when used

    if format_of(args.out, args.format) not in FORMATS:
        raise CommandError(
            f"cannot tell the format of {args.out!r}: use --format {'/'.join(FORMATS)}"
        )
    if not args.plan_target > 0:
        raise CommandError("--plan-target must be a number > 0")
    check_out(args.out)
    items = [i.strip() for i in args.items.split(",") if i.strip()] if args.items else None
    from alignment.report_section import alignment_for_report

    report = build_report(
        store,
        args.name,
        item_ids=items,
        n_resamples=args.resamples,
        seed=args.seed,
        reference_method=args.reference,
        alignment=alignment_for_report(
            store, args.name, n_resamples=args.resamples, seed=args.seed
        ),
    )
    from workbench_api.estimates import report_estimates

    report.estimates = report_estimates(store, args.name, report.data, args.plan_target)
    paths = write_report(report, args.out, args.format)
    print(
        f"wrote {paths[0]}"
        + (f" and {len(paths) - 1} reliability CSV(s)" if len(paths) > 1 else "")
    )
    return 0
