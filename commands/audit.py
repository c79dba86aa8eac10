"""``audit``: export the disagreement table (the Audit page's table) as CSV."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from audit.categories import CATEGORIES
from commands import CommandError
from commands.agreement import REFERENCES
from commands.numbers import nonnegative_number
from common.csv_safe import to_csv

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the audit command."""
    p = sub.add_parser("audit", help="export the evaluator-vs-people disagreement table")
    p.add_argument("name", help="project name")
    p.add_argument("--out", required=True, help="CSV file to write ('-' for stdout)")
    p.add_argument(
        "--field", default=None, help="field to compare on (default: the one most evaluators score)"
    )
    p.add_argument("--evaluators", default=None, help="comma-separated evaluator columns")
    p.add_argument(
        "--category",
        action="append",
        choices=CATEGORIES,
        default=None,
        help="keep only this kind of disagreement (repeatable)",
    )
    p.add_argument("--generator", action="append", default=None, help="repeatable")
    p.add_argument("--split", action="append", default=None, help="repeatable")
    p.add_argument(
        "--reference",
        action="store_true",
        help="compare against the adjudicated labels (else the people's mean)",
    )
    p.add_argument(
        "--human-reference",
        choices=REFERENCES,
        default="majority",
        help="on nominal fields: the people's mean (majority, default) or the labels "
        "aggregated by dawid_skene or mace",
    )
    p.add_argument("--agree-threshold", type=nonnegative_number, default=0.25)
    p.add_argument("--differ-threshold", type=nonnegative_number, default=0.25)
    p.set_defaults(handler=cmd_audit)


def cmd_audit(args: argparse.Namespace, store: Store) -> int:
    """Build the table like the Audit page does, filter it, write CSV."""
    from audit.analysis import filter_audit
    from workbench_api.audit import disagreements

    chosen = [e.strip() for e in args.evaluators.split(",")] if args.evaluators else None
    try:
        table, field = disagreements(
            store,
            args.name,
            field=args.field,
            evaluators=chosen,
            reference=args.reference,
            human_reference=args.human_reference,
            agree_threshold=args.agree_threshold,
            differ_threshold=args.differ_threshold,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    frame = filter_audit(
        table.frame, categories=args.category, generators=args.generator, splits=args.split
    )
    if args.out == "-":
        to_csv(frame, sys.stdout)
    else:
        to_csv(frame, args.out)
        print(
            f"{len(frame)} of {len(table.frame)} items written to {args.out} "
            f"(field {field}, evaluators: {', '.join(table.evaluators) or 'none'})"
        )
    return 0
