"""``agreement``: every agreement figure of a project, as JSON or a readable table."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from commands import CommandError
from commands.numbers import count

if TYPE_CHECKING:
    from annotation_store import Store


def add_bootstrap_options(p: argparse.ArgumentParser) -> None:
    """``--resamples`` and ``--seed`` of the bootstrap CIs."""
    p.add_argument(
        "--resamples",
        type=count,
        default=DEFAULT_RESAMPLES,
        help=f"bootstrap resamples for the CIs (default {DEFAULT_RESAMPLES}; 0: none)",
    )
    p.add_argument("--seed", type=count, default=DEFAULT_SEED, help="bootstrap seed")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the agreement command."""
    p = sub.add_parser("agreement", help="agreement among humans and with evaluators")
    p.add_argument("name", help="project name")
    p.add_argument("--json", action="store_true", help="print the JSON document")
    p.add_argument(
        "--field",
        action="append",
        default=None,
        help="only this human field or derived score (repeatable)",
    )
    add_bootstrap_options(p)
    p.add_argument("--no-timeline", action="store_true", help="skip agreement over time")
    p.add_argument(
        "--pairs",
        action="store_true",
        help="list every annotator pair's Cohen kappa (above 30 annotators they are "
        "summarised: mean, spread, n and the weakest pairs)",
    )
    p.add_argument(
        "--metaeval",
        action="store_true",
        help="include the meta-evaluation the project names (setting 'metaeval'); "
        "`cli.py metaeval` computes it for any field",
    )
    add_reference_option(p)
    p.set_defaults(handler=cmd_agreement)


REFERENCES = ("majority", "dawid_skene", "mace")  # study_inputs.references.REFERENCES


def add_reference_option(p: argparse.ArgumentParser) -> None:
    """``--reference``: the human reference evaluators are compared with."""
    p.add_argument(
        "--reference",
        choices=REFERENCES,
        default="majority",
        help="human reference on nominal fields: majority (default: the people's mean and "
        "majority), or the labels aggregated by dawid_skene or mace",
    )


def compute(store: Store, args: argparse.Namespace) -> dict[str, Any]:
    """The agreement document for the parsed arguments, as a JSON-ready dict."""
    from study_inputs.load import load_inputs
    from workbench_api.analysis import agreement  # heavy (scipy): imported when used

    if args.resamples < 0:
        raise CommandError("--resamples must be >= 0")
    # the names as categoricals: the same document, a fraction of the memory (issue #47)
    inputs = load_inputs(store, args.name, reference_method=args.reference, compact=True)
    doc = agreement(
        store,
        args.name,
        fields=args.field,
        resamples=args.resamples,
        seed=args.seed,
        timeline=not args.no_timeline,
        reference=args.reference,
        pairs=args.pairs,
        metaeval=args.metaeval,
        inputs=inputs,
    )
    return doc.to_dict()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (restored afterwards).

    Loading a large project creates a few hundred thousand objects that live until the
    document is printed; the collections their allocation triggers walk all of them
    again and again (about a quarter of the command's CPU time on 10,000 items). The
    objects still alive at the end are frozen (``gc.freeze``) before the collector is
    back on, so its next collection does not walk them all once more (about 0.05 s);
    refcounting still frees them. Values are not affected.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


def cmd_agreement(args: argparse.Namespace, store: Store) -> int:
    """Print the agreement document."""
    with gc_paused():
        data = compute(store, args)
    if args.json:
        from reports.formats import portable_floats

        print(json.dumps(portable_floats(data), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        from reports.text import document_text

        print(document_text(data))
    return 0
