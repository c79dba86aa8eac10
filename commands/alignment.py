"""``alignment``: every evaluator version against the humans on one field, and version diffs."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from commands import CommandError
from commands.agreement import add_bootstrap_options
from commands.numbers import positive_int, positive_number

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the alignment command."""
    p = sub.add_parser("alignment", help="evaluator versions against the humans, version diff")
    p.add_argument("name", help="project name")
    p.add_argument(
        "--field", default=None, help="the human field or derived score (default: first scored)"
    )
    p.add_argument("--json", action="store_true", help="print the JSON document")
    p.add_argument(
        "--diff",
        nargs=2,
        metavar=("A", "B"),
        default=None,
        help="item-by-item diff of two versions (labels as listed, e.g. 'judge:toy v1')",
    )
    p.add_argument(
        "--card",
        default=None,
        metavar="VERSION",
        help="the evaluation card of one version (label as listed, e.g. 'judge:x v2') as Markdown",
    )
    p.add_argument("--out", default=None, help="with --card: write the card to this file")
    add_bootstrap_options(p)
    p.add_argument(
        "--epsilon",
        type=positive_number,
        default=None,
        help="alternative annotator test tolerance (default 0.2)",
    )
    p.add_argument(
        "--escalate",
        nargs="?",
        const="",
        default=None,
        metavar="VERSION",
        help="the confidence threshold above which the judge decides with a guarantee "
        "(Trust or Escalate); default version: the newest",
    )
    p.add_argument("--alpha", type=float, default=None, help="with --escalate: 1 - agreement (0.1)")
    p.add_argument("--delta", type=float, default=None, help="with --escalate: risk (0.05)")
    p.add_argument(
        "--confidence",
        choices=("samples", "logprob", "verbal"),
        default="samples",
        help="with --escalate: the judge's confidence (default: agreement among its samples)",
    )
    p.add_argument(
        "--tolerance",
        type=positive_number,
        default=None,
        help="with --escalate on a graded field: how far from the people's mean still agrees (0.5)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="drift alarm: re-judge the judge's anchor items (cache bypassed), compare with "
        "its stored answers and the people; exit 1 below the bar",
    )
    p.add_argument(
        "--anchors",
        type=positive_int,
        default=None,
        help="with --check: how many anchors the first check chooses (20)",
    )
    p.add_argument(
        "--min-kappa",
        type=float,
        default=None,
        help="with --check: the bar, kappa with the stored answers at least K (default 0.8)",
    )
    p.add_argument(
        "--max-drop",
        type=float,
        default=None,
        help="with --check: the bar, the kappa with the people falls by at most D",
    )
    p.add_argument(
        "--evaluator",
        default=None,
        help="with --check or --robustness: the judge (judge:NAME[@VERSION]; default the "
        "newest judge run)",
    )
    p.add_argument(
        "--robustness",
        action="store_true",
        help="injection probe: re-judge the judge's items with each attack family's text in "
        "the judged output (stored as probe runs), then the share of scores moved, the mean "
        "shift, self-preference and the bias scan of its residual over every item column",
    )
    p.add_argument(
        "--families",
        nargs="+",
        default=None,
        metavar="FAMILY",
        help="with --robustness: the attack families (default: all; texts from the project "
        "setting injection_attacks, else the defaults)",
    )
    p.set_defaults(handler=cmd_alignment)


def _fmt(value: Any) -> str:
    from agreement.statistics import DASH

    return DASH if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def table_text(doc: dict[str, Any]) -> str:
    """The document as a readable table: one line per version, then its probes, each
    figure with the n it was computed on."""
    from agreement.statistics import DASH
    from alignment.cost import cost_text, price_note
    from alignment.frames import headline_name

    name = headline_name(doc["headline"])
    lines = [f"{doc['project']} · {doc['field']} ({doc['field_type']}); headline: {name}"]
    if doc["field_type"] == "pairwise":
        return "\n".join(lines + [x for row in doc["versions"] for x in pairwise_lines(row)])
    for row in doc["versions"]:
        h = row["headline"]
        ci = f" [{_fmt(h['ci'][0])}, {_fmt(h['ci'][1])}]" if h.get("ci") else ""
        lines.append(
            f"  {row['label']}: {row['n']} items compared; {name} {_fmt(h['value'])}{ci} "
            f"(n {h.get('n', 0)}), failures {_fmt(row['failure_rate'])} "
            f"(n {row['n_results']} results), mean cost {cost_text(row) or DASH}, "
            f"excluded {row['excluded']['n']}"
            + (f", accuracy {_fmt(row['accuracy'])}" if row.get("accuracy") is not None else "")
        )
        if note := price_note(row):
            lines.append(f"    {note}")
        lines += [f"    {line}" for line in probe_lines(row["probes"])]
    return "\n".join(lines)


def _share(name: str, x: dict[str, Any], unit: str) -> str:
    ci = x.get("ci")
    span = f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else ""
    return f"{name} {_fmt(x['value'])}{span} (n {x['n']} {unit})" + (
        f": {x['reason']}" if x.get("reason") else ""
    )


def pairwise_lines(row: dict[str, Any]) -> list[str]:
    """A pairwise judge's version: agreement with people and the position figures."""
    a, pos = row["agreement"], row["position"]
    lines = [
        f"  {row['label']}: {row['verdict']}; excluded {row['excluded']['n']}",
        f"    {_share('agreement with ties', a['with_ties'], 'votes')}",
        f"    {_share('agreement without ties', a['without_ties'], 'votes')}",
    ]
    if not pos.get("n"):
        return [*lines, f"    position: {pos.get('reason')}"]
    return [
        *lines,
        f"    {_share('position consistency', pos['consistency'], 'pairs')}, vs {pos['partner']}",
        f"    {_share('first position both times', pos['biased_first'], 'pairs')}",
        f"    {_share('second position both times', pos['biased_second'], 'pairs')}",
    ]


def probe_lines(p: dict[str, Any]) -> list[str]:
    """One line per probe: its figures and n, or why it is missing."""
    from alignment.frames import ECE_BINARY, alt_test_n, recalibration_text

    def share(x: dict[str, Any]) -> str:
        ci = x.get("ci")
        span = f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else ""
        return f"{_fmt(x['changed'])}{span} changed (n {x['n']}, vs {x['partner']})"

    cal, lb, sc = p["calibration"], p["length_bias"], p["self_consistency"]
    alt = p["alt_test"]
    out = {
        "calibration": cal.get("n")
        and f"ECE ({cal.get('definition') or ECE_BINARY}) {_fmt(cal['ece'])}"
        + (f", Brier {_fmt(cal['brier'])}" if "brier" in cal else "")
        + f" (n {cal['n']})",
        "self-consistency": sc.get("n")
        and f"unanimous {_fmt(sc['unanimous'])}, alpha {_fmt(sc.get('alpha'))} (n {sc['n']}); "
        + "; ".join(
            _share(name, {"n": 0, **x, "value": x.get("value")}, "items")
            for name, x in (
                ("flip rate", sc.get("flip_rate") or {}),
                ("people's alpha", sc.get("people_alpha") or {}),
            )
        ),
        "length bias": lb.get("n")
        and f"spearman {_fmt(lb['spearman']['r'])} (n {lb['spearman'].get('n', lb['n'])})",
        "position swap": p["position_swap"].get("n") and share(p["position_swap"]),
        "option order": (p.get("option_order") or {}).get("n") and share(p["option_order"]),
        "alt-test": alt.get("reason")
        or f"omega {_fmt(alt['winning_rate'])}, rho {_fmt(alt['advantage'])}, "
        f"{'passes' if alt['passed'] else 'does not pass'} ({alt_test_n(alt)})",
        "human ceiling": (hc := p.get("human_ceiling") or {}).get("z") is not None
        and f"z {hc['z']:.2f}, {hc['verdict']} ({hc['kappa']}, judge {_fmt(hc['judge']['mean'])} "
        f"vs pairs {_fmt(hc['people']['mean'])} ± {_fmt(hc['people']['sd'])}; "
        f"{hc['people']['n_pairs']} pairs, n {hc['n']})",
        "recalibration": (rec := p.get("recalibration") or {}).get("raw")
        and f"{recalibration_text(rec)} ({rec['k']}-fold cross-fitted, n {rec['n']})",
        "injection": "; ".join(
            f"{f['family']} {_fmt(f['moved'])} moved, shift {f['mean_shift']:+.3f} (n {f['n']})"
            for f in (p.get("injection") or {}).get("families") or []
            if f["n"]
        ),
        "bias scan": (bs := p.get("bias_scan") or {}).get("tests")
        and f"significant after {bs['correction']}: {', '.join(bs['significant']) or 'nothing'} "
        f"({len(bs['tests'])} tests, n {bs['n']} items)",
    }
    reasons = {
        "calibration": cal.get("reason"),
        "self-consistency": sc.get("reason"),
        "length bias": lb.get("reason"),
        "position swap": p["position_swap"].get("reason"),
        "option order": (p.get("option_order") or {}).get("reason"),
        "recalibration": (p.get("recalibration") or {}).get("reason"),
        "human ceiling": (p.get("human_ceiling") or {}).get("reason"),
        "injection": (p.get("injection") or {}).get("reason"),
        "bias scan": (p.get("bias_scan") or {}).get("reason"),
    }
    return [f"{k}: {v or reasons.get(k) or '-'}" for k, v in out.items()]


def _write_card(doc: dict[str, Any], label: str, out: str | None) -> int:
    from pathlib import Path

    from alignment.card import card_markdown, evaluation_card

    if doc["field_type"] == "pairwise":
        raise CommandError(
            f"no evaluation card for the pairwise question {doc['field']!r}: its judge "
            f"figures are in 'alignment {doc['project']} --field {doc['field']}'"
        )
    text = card_markdown(evaluation_card(doc, label))
    if out is None:
        print(text, end="")
        return 0
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {out}: {exc.strerror}") from None
    print(f"evaluation card of {label} written to {out}")
    return 0


#: Escalated items named in the text output (the JSON lists every one).
SHOWN = 20


def escalation_text(doc: dict[str, Any]) -> str:
    """The escalation document in lines: the guarantee, the agreement kept, each
    threshold tested and the items sent to people."""
    a = doc["agreement"]
    ci = f" [{_fmt(a['ci'][0])}, {_fmt(a['ci'][1])}]" if a.get("ci") else ""
    lines = [
        f"{doc['project']} · {doc['field']} ({doc['field_type']}) · {doc['version']}: "
        f"escalation at alpha {doc['alpha']:g}, delta {doc['delta']:g}",
        f"  confidence: {doc['confidence']['definition']}",
        f"  agreement: {doc['rule']}",
        f"  {doc['guarantee']}",
        f"  threshold {_fmt(doc['threshold'])}, coverage {_fmt(doc['coverage'])} "
        f"(n {doc['n']} calibration items), agreement on kept items {_fmt(a['value'])}{ci} "
        f"(n {a['n']})",
    ]
    lines += [
        f"    tested {t['threshold']:.2f}: {t['errors']} of {t['n']} disagree, p {t['p']:.4g}, "
        f"upper bound {t['upper_bound']:.3f} -> {'passes' if t['passed'] else 'stops'}"
        for t in doc["tests"]
    ]
    sent = doc["escalated"]
    shown = ", ".join(x["item_id"] for x in sent[:SHOWN])
    more = f" and {len(sent) - SHOWN} more (--json lists them all)" if len(sent) > SHOWN else ""
    lines.append(
        f"  to people: {len(sent)} of {doc['n_judged']} judged items"
        + (f": {shown}{more}" if sent else "")
    )
    return "\n".join(lines)


def _escalate(args: argparse.Namespace, store: Store) -> dict[str, Any]:
    from alignment.escalate import TOLERANCE, escalation
    from alignment.escalation import ALPHA, DELTA

    alpha = ALPHA if args.alpha is None else args.alpha
    delta = DELTA if args.delta is None else args.delta
    if not (0 < alpha < 1 and 0 < delta < 1):
        raise CommandError("--alpha and --delta must be in (0, 1)")
    return escalation(
        store,
        args.name,
        args.field,
        args.escalate or None,
        alpha=alpha,
        delta=delta,
        source=args.confidence,
        tolerance=TOLERANCE if args.tolerance is None else args.tolerance,
    )


def _check(args: argparse.Namespace, store: Store) -> int:
    """The drift check: one line per finding (or --json); 1 when below the bar."""
    from evaluators.base import NotConfiguredError
    from reports.formats import portable_floats
    from workbench_api.drift import DriftError, check_drift

    if args.min_kappa is not None and not -1 <= args.min_kappa <= 1:
        raise CommandError("--min-kappa must be in [-1, 1]")
    if args.max_drop is not None and not 0 <= args.max_drop <= 2:
        raise CommandError("--max-drop must be in [0, 2]")
    try:
        report = check_drift(
            store,
            args.name,
            args.evaluator,
            n_anchors=args.anchors,
            min_kappa=args.min_kappa,
            max_drop=args.max_drop,
            field=args.field,
        )
    except (DriftError, NotConfiguredError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        doc = portable_floats(report.to_dict())
        print(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print("\n".join(report.lines))
    return 0 if report.verdict.passed else 1


CHECK_ONLY = ("anchors", "min_kappa", "max_drop")


def robustness_text(doc: dict[str, Any], notes: list[str]) -> str:
    """The robustness document in lines: the runs made, each family, self-preference and
    the bias scan (significant tests first)."""
    from alignment.robustness import robustness_lines

    head = f"{doc['project']} · {doc['field']} · {doc['version']}: robustness"
    probes = {
        "injection": doc["injection"],
        "ego_bias": doc["self_preference"],
        "bias_scan": doc["bias_scan"],
    }
    return "\n".join(
        [head, *(f"  ran {n}" for n in notes), *(f"  {x}" for x in robustness_lines(probes))]
    )


def _robustness(args: argparse.Namespace, store: Store) -> int:
    from evaluators.base import NotConfiguredError
    from reports.formats import portable_floats
    from workbench_api.robustness import RobustnessError, robustness_document, run_injection

    try:
        sig, _, notes = run_injection(store, args.name, args.evaluator, args.families)
        doc = robustness_document(
            store, args.name, sig, args.field, n_resamples=args.resamples, seed=args.seed
        )
    except (RobustnessError, NotConfiguredError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        text = json.dumps(portable_floats(doc), indent=2, ensure_ascii=False, allow_nan=False)
        print(text)
    else:
        print(robustness_text(doc, notes))
    return 0


def cmd_alignment(args: argparse.Namespace, store: Store) -> int:
    """Print the alignment document (or a version diff), or run a drift check."""
    from alignment.inputs import AlignmentError
    from reports.formats import portable_floats

    if not args.check and any(getattr(args, k) is not None for k in CHECK_ONLY):
        raise CommandError("--anchors, --min-kappa and --max-drop go with --check")
    if args.evaluator is not None and not (args.check or args.robustness):
        raise CommandError("--evaluator goes with --check or --robustness")
    if args.families is not None and not args.robustness:
        raise CommandError("--families goes with --robustness")
    if args.robustness:
        if args.check or args.escalate is not None or args.diff or args.card:
            raise CommandError(
                "--robustness runs alone (not with --check, --escalate, --diff or --card)"
            )
        return _robustness(args, store)
    if args.check:
        if args.escalate is not None or args.diff or args.card:
            raise CommandError("--check runs alone (not with --escalate, --diff or --card)")
        return _check(args, store)
    if args.resamples < 0:
        raise CommandError("--resamples must be >= 0")
    if args.epsilon is not None and not 0 <= args.epsilon < 1:
        raise CommandError("--epsilon must be in [0, 1)")
    if args.out and not args.card:
        raise CommandError("--out goes with --card VERSION")
    if args.escalate is None and (args.alpha, args.delta, args.tolerance) != (None,) * 3:
        raise CommandError("--alpha, --delta and --tolerance go with --escalate")
    try:
        if args.escalate is not None:
            data = _escalate(args, store)
            if not args.json:
                print(escalation_text(data))
                return 0
        elif args.diff:
            from alignment.diff import diff_versions

            hint = (
                "Their agreement with the people is compared side by side in "
                f"'alignment {args.name}' (without --diff)."
            )
            data = diff_versions(store, args.name, *args.diff, field=args.field, hint=hint)
            if not args.json:
                print(json.dumps(data["summary"]))
                for r in data["items"]:
                    print(
                        f"  {r['item_id']}: {_fmt(r['score_a'])} -> {_fmt(r['score_b'])} "
                        f"({r['movement']})"
                    )
                return 0
        else:
            from alignment.table import alignment_table

            data = alignment_table(
                store,
                args.name,
                args.field,
                n_resamples=args.resamples,
                seed=args.seed,
                epsilon=args.epsilon,
            )
            if args.card:
                return _write_card(data, args.card, args.out)
            if not args.json:
                print(table_text(data))
                return 0
    except AlignmentError as exc:
        raise CommandError(str(exc)) from None
    print(json.dumps(portable_floats(data), indent=2, ensure_ascii=False, allow_nan=False))
    return 0
