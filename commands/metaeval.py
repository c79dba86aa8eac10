"""``metaeval``: evaluators against people at the segment, group and system level, with
CIs, tests between evaluators and significance clusters (docs/metaeval.md)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from commands import CommandError
from commands.agreement import add_bootstrap_options, add_reference_option, gc_paused
from commands.numbers import count

if TYPE_CHECKING:
    from annotation_store import Store

LEVELS = ("segment", "group", "system")
STATISTICS = (
    "pearson",
    "spearman",
    "kendall_b",
    "kendall_c",
    "acc_eq",
    "pairwise_accuracy",
    "soft_pairwise_accuracy",
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the metaeval command."""
    p = sub.add_parser(
        "metaeval", help="meta-evaluation: segment, group and system level, tests, clusters"
    )
    p.add_argument("name", help="project name")
    p.add_argument("--field", required=True, help="numeric human field or derived score")
    p.add_argument(
        "--group", help="item field naming the input an item answers (source, dialogue, prompt)"
    )
    p.add_argument(
        "--system", default="generator", help="item field naming the system (default generator)"
    )
    p.add_argument(
        "--evaluator",
        action="extend",
        nargs="+",
        default=None,
        help="only these evaluators (as labelled in the agreement tables)",
    )
    p.add_argument(
        "--statistic",
        action="extend",
        nargs="+",
        choices=STATISTICS,
        default=None,
        help="only these statistics (default: all)",
    )
    add_bootstrap_options(p)
    add_reference_option(p)
    p.add_argument(
        "--workers",
        type=count,
        default=None,
        help="processes for the rows and the tests (0: the CPUs, at most 2; default: two "
        "when a CPU is idle, else one). Same results whatever the number; two cut the "
        "wall time on an idle machine, at some more CPU time, and gain nothing on a busy one",
    )
    p.add_argument("--json", action="store_true", help="print the JSON document")
    p.set_defaults(handler=cmd_metaeval)


def cmd_metaeval(args: argparse.Namespace, store: Store) -> int:
    """Print the meta-evaluation."""
    from agreement.metaeval.grid import MetaEvalError
    from agreement.metaeval.parallel import default_workers, idle_workers
    from common.heap import keep_freed_memory
    from workbench_api.metaeval import metaeval

    keep_freed_memory()

    with gc_paused():
        try:
            doc = metaeval(
                store,
                args.name,
                args.field,
                reference=args.reference,
                group=args.group,
                system=args.system,
                evaluators=args.evaluator,
                statistics=args.statistic,
                n_resamples=args.resamples,
                seed=args.seed,
                workers=(
                    idle_workers() if args.workers is None else args.workers or default_workers()
                ),
            )
        except MetaEvalError as e:
            raise CommandError(str(e)) from None
        data = doc.to_dict()
    if args.json:
        from reports.formats import portable_floats

        print(json.dumps(portable_floats(data), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        from reports.metaeval_section import metaeval_lines

        print("\n".join(metaeval_lines(data)))
    return 0
