"""``audit``: export the disagreement table (the Audit page's table) as CSV."""

from __future__ import annotations

import argparse
import sys

from annotation_store import Store
from annotation_store.adjudication import adjudicated_reference
from annotation_store.audit import (
    CATEGORIES,
    build_audit_table,
    comparable_fields,
    filter_audit,
    registry_scales,
)
from commands import CommandError
from common.csv_safe import to_csv


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
    p.add_argument("--agree-threshold", type=float, default=0.25)
    p.add_argument("--differ-threshold", type=float, default=0.25)
    p.set_defaults(handler=cmd_audit)


def cmd_audit(args: argparse.Namespace, store: Store) -> int:
    """Build the table like the Audit page does, filter it, write CSV."""
    info = store.project(args.name)
    scores = store.scores_frame(args.name)
    fields = comparable_fields(info.task_kind, info.settings, scores)
    field = args.field or (fields[0] if fields else None)
    if field not in fields:
        raise CommandError(f"cannot compare on {field!r}; choose one of {', '.join(fields)}")
    chosen = [e.strip() for e in args.evaluators.split(",")] if args.evaluators else None
    table = build_audit_table(
        info.task_kind,
        info.settings,
        store.items(args.name),
        store.annotations_frame(args.name, ("submitted",)),
        scores,
        store.results_frame(args.name, include_failed=True),
        field,
        evaluators=chosen,
        evaluator_scales=registry_scales(chosen or scores["evaluator"].unique(), field),
        reference=adjudicated_reference(store, args.name) if args.reference else None,
        agree_threshold=args.agree_threshold,
        differ_threshold=args.differ_threshold,
    )
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
