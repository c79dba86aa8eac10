"""``evaluate``: run a registered evaluator over a project, with a progress bar."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commands import CommandError
from commands.numbers import positive_int, positive_number

if TYPE_CHECKING:
    from annotation_store import Store
    from jobs.runner import RunProgress


def register(sub: argparse._SubParsersAction) -> None:
    """Add the evaluate command."""
    p = sub.add_parser("evaluate", help="run an evaluator over a project's items")
    p.add_argument("name", help="project name")
    p.add_argument(
        "--evaluator",
        required=True,
        help="registry name, e.g. bifact, bleu, sgsacc (an unknown name lists them all), "
        "or a stored judge: judge:NAME[@VERSION] (latest version without @)",
    )
    p.add_argument("--runs", type=positive_int, default=None, help="repeat the run N times")
    p.add_argument("--limit", type=positive_int, default=None, help="only the first N items")
    p.add_argument("--items", default=None, help="comma-separated item ids")
    p.add_argument(
        "--settings",
        default=None,
        help="evaluator settings as JSON, or @FILE to read them from a JSON file "
        "(a jury's members, for instance)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        help="items per batch (default: the evaluator's own, 256 for local models, "
        "for LLM judges the concurrency limit, at most 16)",
    )
    p.add_argument(
        "--mode",
        choices=("online", "batch"),
        default="online",
        help="online: one call per request (default); batch: LLM judges send their requests "
        "through the OpenAI Batch API and this process polls until they are done (re-running "
        "the command after an interruption resumes the same batch)",
    )
    p.add_argument(
        "--poll-seconds",
        type=positive_number,
        default=None,
        help="batch mode: seconds between polls (default WORKBENCH_LLM_BATCH_POLL or 30)",
    )
    p.add_argument(
        "--probe",
        choices=("swap", "reverse_options"),
        default=None,
        help="judges only: a probe run of the version, stored against it (swap: the two texts "
        "exchanged; reverse_options: a label judge's options in reverse order); the Alignment "
        "page and `alignment` report the share of changed decisions",
    )
    p.add_argument(
        "--samples",
        type=positive_int,
        default=None,
        help="LLM judges: replies per item (default: the judge's own setting); each item "
        "keeps its k answers, and the Alignment card gives the flip rate and the judge's "
        "alpha among them; cached samples are reused",
    )
    p.set_defaults(handler=cmd_evaluate)


def _bar(p: RunProgress) -> None:
    width = 30
    filled = int(width * p.done / p.total) if p.total else width
    line = (
        f"\r[{'#' * filled}{'.' * (width - filled)}] {p.done}/{p.total} "
        f"failed {p.failed} cached {p.cached} tokens {p.tokens_in + p.tokens_out}"
    )
    print(line, end="", file=sys.stderr, flush=True)


def cmd_evaluate(args: argparse.Namespace, store: Store) -> int:
    """Run the evaluator and print a one-line summary."""
    from evaluators.llm.batch import BatchError
    from jobs.runner import run_corpus_summary, run_evaluator
    from workbench_api.data import ApiError, parse_settings

    try:
        settings = parse_settings(settings_text(args.settings))
    except ApiError as exc:
        raise CommandError(f"--{exc}") from None
    if args.probe:
        if not args.evaluator.startswith("judge:"):
            raise CommandError("--probe runs a stored judge (--evaluator judge:NAME[@VERSION])")
        settings = {**(settings or {}), "probe": args.probe}
    if args.samples is not None:
        settings = with_samples(args.evaluator, settings, args.samples)
    item_ids = [i.strip() for i in args.items.split(",")] if args.items else None
    try:
        progress = run_evaluator(
            store,
            args.name,
            args.evaluator,
            runs=args.runs,
            item_ids=item_ids,
            limit=args.limit,
            settings=settings,
            batch_size=args.batch_size,
            on_progress=_bar,
            mode=args.mode,
            poll_s=args.poll_seconds,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    except BatchError as exc:
        raise CommandError(
            f"the batch run stopped: {exc}. Its run is marked stopped; the same command "
            "resumes it from the same batch (nothing is paid twice)."
        ) from None
    print(file=sys.stderr)
    print(
        f"{run_label(store, args.name, args.evaluator, progress.run_ids)}: "
        f"{progress.done} evaluated, {progress.failed} failed, "
        f"{progress.cached} cached, runs {progress.run_ids}"
    )
    if progress.batch.get("summary"):
        print(f"  {progress.batch['summary']}")
    for run_id in progress.run_ids:
        summary = run_corpus_summary(store, run_id, args.evaluator)
        if summary is not None:
            print(f"  run {run_id}: {summary_line(summary)}")
    return 0


def settings_text(value: str | None) -> str | None:
    """``--settings`` as given, or the text of the file ``@FILE`` names."""
    if not value or not value.startswith("@"):
        return value
    path = Path(value[1:])
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise CommandError(f"--settings {value}: cannot read {path}: {reason}") from None


def with_samples(evaluator: str, settings: dict[str, Any] | None, k: int) -> dict[str, Any]:
    """The run settings with ``samples`` k, for a judge that draws samples (a stored
    judge, or a registered evaluator whose settings have ``samples``)."""
    if (settings or {}).get("samples", k) != k:
        raise CommandError("--samples and --settings give different samples: give one")
    if not evaluator.startswith("judge:"):
        from evaluators.registry import get_evaluator_class

        try:
            cls = get_evaluator_class(evaluator)
        except (KeyError, ValueError):
            cls = None  # the run itself names the unknown evaluator
        model = getattr(cls, "Settings", None)
        if cls is not None and "samples" not in getattr(model, "model_fields", {}):
            raise CommandError(
                f"--samples: {evaluator!r} draws no samples (stored judges, judge:NAME, "
                "and evaluators with a 'samples' setting do)"
            )
    return {**(settings or {}), "samples": k}


def run_label(store: Store, project: str, evaluator: str, run_ids: list[int]) -> str:
    """The evaluator's name, with the NLI backend that ran when it has one
    (``sgsacc (LLM-NLI: gpt-4o)``): a backend chosen by ``auto`` is never silent."""
    from common.evaluator_labels import nli_backend_label

    models = {r.model for r in store.runs(project) if r.id in set(run_ids)}
    labels = sorted({b for b in map(nli_backend_label, models) if b})
    return f"{evaluator} ({'; '.join(labels)})" if labels else evaluator


def summary_line(summary: dict[str, object]) -> str:
    """``key value`` pairs of a corpus summary on one line (shares to 4 decimals)."""

    def show(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.4f}"
        if isinstance(value, dict):
            return json.dumps(value, sort_keys=True)
        return "n/a" if value is None else str(value)

    return " · ".join(f"{key} {show(value)}" for key, value in summary.items())
