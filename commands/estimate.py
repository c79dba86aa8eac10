"""``estimate``: what people would say about each system, from few labels and a judge."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from commands import CommandError

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the estimate command."""
    p = sub.add_parser(
        "estimate",
        help="human-only, judge-only and PPI++ estimates of a field's mean, per system",
    )
    p.add_argument("name", help="project name")
    p.add_argument("--field", required=True, help="a numeric or binary human field")
    p.add_argument(
        "--evaluator",
        required=True,
        help="the judge: an evaluator name (its newest version) or a version label",
    )
    p.add_argument("--by", choices=["generator"], default=None, help="one group per system as well")
    p.add_argument(
        "--pair-by",
        default=None,
        metavar="ITEM_FIELD",
        help="item field naming the input, to pair systems that answered the same inputs",
    )
    p.add_argument(
        "--target",
        type=float,
        default=None,
        help="plan: human labels needed for this 95%% interval half-width",
    )
    p.add_argument("--json", action="store_true", help="print the JSON document")
    p.set_defaults(handler=cmd_estimate)
    q = sub.add_parser(
        "select",
        help="draw the items people should label (active selection) and hand out only them",
    )
    q.add_argument("name", help="project name")
    q.add_argument("--field", required=True, help="the field the estimates are about")
    q.add_argument(
        "--evaluator",
        action="append",
        required=True,
        help="the judge; give two or more versions to draw where they disagree",
    )
    q.add_argument("--budget", type=int, required=True, help="expected number of items drawn")
    q.add_argument("--seed", type=int, default=0, help="seed of the draw (recorded)")
    q.set_defaults(handler=cmd_select)


def cmd_estimate(args: argparse.Namespace, store: Store) -> int:
    """Print the estimates table (or JSON)."""
    from estimates.table import table_text
    from reports.formats import portable_floats
    from workbench_api.estimates import estimate

    if args.target is not None and not args.target > 0:
        raise CommandError("--target must be a number > 0")
    table = estimate(
        store,
        args.name,
        args.field,
        args.evaluator,
        by_generator=args.by == "generator",
        pair_by=args.pair_by,
        target=args.target,
    )
    if args.json:
        print(json.dumps(portable_floats(table.to_dict()), indent=2, allow_nan=False))
    else:
        print(table_text(table))
    return 0


def cmd_select(args: argparse.Namespace, store: Store) -> int:
    """Draw and record the sample; the project's assignment becomes ``active``."""
    from workbench_api.estimates import select_items

    if args.budget < 1:
        raise CommandError("--budget must be a whole number >= 1")
    out = select_items(store, args.name, args.field, args.evaluator, args.budget, seed=args.seed)
    print(
        f"drew {out['drawn']} of {out['items']} judged items (budget {out['budget']}, "
        f"{out['rule']}); assignment is now 'active'"
    )
    return 0
