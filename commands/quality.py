"""``annotators`` (quality table, exclusions) and ``aggregate`` (labels per item)."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from commands import CommandError

if TYPE_CHECKING:
    from annotation_store import Store

METHODS = ("majority", "dawid_skene", "mace")  # agreement.aggregation.METHODS, kept light
ORDINAL_METHODS = ("mean", "median")  # agreement.ordinal_quality.METHODS


def register(sub: argparse._SubParsersAction) -> None:
    """Add the annotators and aggregate commands."""
    p = sub.add_parser("annotators", help="annotator quality table; exclude or include one")
    p.add_argument("name", help="project name")
    p.add_argument(
        "--field", default=None, help="one nominal or ordinal field (default: all of them)"
    )
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--exclude", metavar="NAME", help="exclude this annotator (needs --reason)")
    p.add_argument("--reason", default=None, help="why the annotator is excluded")
    p.add_argument(
        "--source", default="admin", help="what excludes them (default admin; e.g. gold)"
    )
    p.add_argument("--include", metavar="NAME", help="lift this annotator's exclusions")
    p.add_argument(
        "--apply-flags",
        action="store_true",
        help="exclude the workers the crowd study's checks flag (source: the check)",
    )
    p.set_defaults(handler=cmd_annotators)

    a = sub.add_parser(
        "aggregate", help="aggregated label per item of a nominal, ordinal or score field"
    )
    a.add_argument("name", help="project name")
    a.add_argument(
        "--field", default=None, help="the field (default: the first nominal, else ordinal)"
    )
    a.add_argument(
        "--method",
        choices=METHODS + ORDINAL_METHODS,
        default=None,
        help="nominal fields: majority (default), dawid_skene, mace; ordinal and score "
        "fields: mean (default) or median of the item's ratings",
    )
    a.add_argument("--json", action="store_true", help="print JSON")
    a.set_defaults(handler=cmd_aggregate)


def _plain(value: Any) -> Any:
    """JSON-ready: NaN -> null, numpy scalars -> Python, floats rounded like the reports."""
    from reports.formats import portable_floats

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else portable_floats(value)
    return value


def _cell(value: Any, digits: int = 3) -> str:
    from agreement.statistics import DASH

    if isinstance(value, float):
        return DASH if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def cmd_annotators(args: argparse.Namespace, store: Store) -> int:
    """Exclude / include an annotator, or print the quality table."""
    from workbench_api.quality import annotator_table, apply_crowd_flags

    if sum(map(bool, (args.exclude, args.include, args.apply_flags))) > 1:
        raise CommandError("give one of --exclude, --include and --apply-flags")
    if args.apply_flags:
        recs = apply_crowd_flags(store, args.name)
        for rec in recs:
            print(f"excluded {rec.annotator} from {args.name} ({rec.source}: {rec.reason})")
        print(f"{len(recs)} flag(s) recorded as exclusions")
        return 0
    if args.exclude:
        if not (args.reason or "").strip():
            raise CommandError('--exclude needs --reason "..."')
        rec = store.exclude_annotator(args.name, args.exclude, args.reason, source=args.source)
        print(f"excluded {rec.annotator} from {args.name} ({rec.source}: {rec.reason})")
        return 0
    if args.include:
        n = store.include_annotator(args.name, args.include)
        print(f"included {args.include} in {args.name} ({n} exclusion(s) lifted)")
        return 0
    try:
        table = annotator_table(store, args.name, args.field)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(_plain(table), indent=2, ensure_ascii=False, allow_nan=False))
        return 0
    if not table["fields"] and not table.get("ordinal"):
        print(f"{args.name} has no binary, categorical, ordinal or score field: no figures")
    for field, entry in table["fields"].items():
        print(f"{field} ({entry['n_gold_items']} gold items)")
        _print_table(entry["annotators"], NOMINAL_COLUMNS)
    for field, entry in (table.get("ordinal") or {}).items():
        print(f"{field} (ordinal: {entry['method']})")
        _print_table(entry["annotators"], ORDINAL_COLUMNS)
    return 0


#: The quality tables' columns: heading, key, decimals (None: a count).
NOMINAL_COLUMNS = (
    ("labels", "n_labels", None),
    ("gold", "n_gold", None),
    ("gold acc", "gold_accuracy", 3),
    ("LOO maj", "loo_agreement", 3),
    ("DS", "dawid_skene", 3),
    ("MACE", "mace", 3),
)
ORDINAL_COLUMNS = (
    ("labels", "n_labels", None),
    ("with others", "n_with_others", None),
    ("r others", "r_others", 3),
    ("mean |diff|", "mad_others", 2),
    ("bias", "bias", 2),
)


def _print_table(annotators: list[dict[str, Any]], columns: tuple) -> None:
    """One row per annotator: name, the columns, and why they are excluded."""
    rows = [("annotator", *(c[0] for c in columns), "excluded")]
    for r in annotators:
        why = "; ".join(f"{e['source']}: {e['reason']}" for e in r["excluded"])
        cells = (str(r[k]) if d is None else _cell(r[k], d) for _, k, d in columns)
        rows.append((r["annotator"], *cells, why))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def cmd_aggregate(args: argparse.Namespace, store: Store) -> int:
    """Print one aggregated label per item (with its posterior where the method has one)."""
    from workbench_api.quality import aggregate_labels

    if _ordinal_wanted(store, args):
        return _aggregate_ordinal(store, args)
    try:
        agg, field = aggregate_labels(store, args.name, args.field, args.method or "majority")
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    frame = agg.frame()
    rows = [
        {"item_id": i, "label": lab, "posterior": p}
        for i, lab, p in zip(frame["item_id"], frame["label"], frame["posterior"], strict=True)
    ]
    if args.json:
        doc = {
            "project": args.name,
            "field": field,
            "method": args.method,
            "classes": list(agg.classes),
            "iterations": agg.iterations,
            "items": rows,
            "competence": agg.competence,
        }
        print(json.dumps(_plain(doc), indent=2, ensure_ascii=False, allow_nan=False))
        return 0
    for r in rows:
        label = "(tie)" if r["label"] is None else r["label"]
        print(f"{r['item_id']}\t{label}\t{_cell(float(r['posterior']))}")
    return 0


def _ordinal_wanted(store: Store, args: argparse.Namespace) -> bool:
    """True when ``aggregate`` reads an ordinal or score field: a mean / median method,
    an ordinal field named, or no nominal field to fall back on."""
    from study_inputs.references import aggregable_fields, ordinal_fields

    if args.method in ORDINAL_METHODS:
        return True
    info = store.project(args.name)
    if args.field is not None:
        return args.field in ordinal_fields(info)
    return args.method is None and not aggregable_fields(info) and bool(ordinal_fields(info))


def _aggregate_ordinal(store: Store, args: argparse.Namespace) -> int:
    """Print each item's reference on an ordinal / score field (mean or median, with n)."""
    from study_inputs.references import aggregate_ordinal

    method = args.method or "mean"
    if method not in ORDINAL_METHODS:
        raise CommandError(f"{method} is for nominal fields; an ordinal field takes mean or median")
    try:
        frame, field = aggregate_ordinal(store, args.name, args.field, method)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    rows = [
        {"item_id": i, "value": v, "n": int(n)}
        for i, v, n in zip(frame["item_id"], frame["value"], frame["n"], strict=True)
    ]
    if args.json:
        doc = {"project": args.name, "field": field, "method": method, "items": rows}
        print(json.dumps(_plain(doc), indent=2, ensure_ascii=False, allow_nan=False))
        return 0
    for r in rows:
        print(f"{r['item_id']}\t{_cell(float(r['value']), 2)}\t{r['n']}")
    return 0
