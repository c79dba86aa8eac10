"""The drift check of one judge (``alignment PROJECT --check``): re-judge its anchor
items with the cache bypassed, compare with its stored answers and with the people,
record the check in the project's history.

The figures and the bar are :mod:`alignment.drift`; anchors and history are stored by
:mod:`alignment.drift_records`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alignment.drift import (
    ANCHORS,
    DriftFigures,
    Verdict,
    choose_anchors,
    compare,
    finding_lines,
    majority,
    verdict,
)

if TYPE_CHECKING:
    from annotation_store import Store
    from evaluators.base import EvalResult, Evaluator

SEED = 0


class DriftError(ValueError):
    """A check that cannot run (no judge, nothing stored to compare with)."""


@dataclass(frozen=True)
class DriftReport:
    """One check: who ran, on what, the figures, the verdict and its lines."""

    evaluator: str
    version: str
    model: str | None
    field: str
    anchors: dict[str, str | None]
    figures: DriftFigures
    verdict: Verdict
    notes: list[str]

    @property
    def lines(self) -> list[str]:
        """The header, any notes, then one line per finding."""
        strat = "stratified by the people's majority" if any(self.anchors.values()) else "random"
        head = (
            f"{self.evaluator} v{self.version} · model {self.model or '-'} · {self.field}: "
            f"{len(self.anchors)} anchors ({strat}, seed {SEED}) re-judged now, cache bypassed"
        )
        return [head, *self.notes, *finding_lines(self.figures, self.verdict)]

    def to_dict(self) -> dict[str, Any]:
        """JSON form of the check."""
        return {
            "evaluator": self.evaluator,
            "version": self.version,
            "model": self.model,
            "field": self.field,
            "anchors": self.anchors,
            **self.figures.to_dict(),
            "bar": self.verdict.bar,
            "passed": self.verdict.passed,
            "why": self.verdict.why,
        }


def newest_judge(store: Store, project: str) -> str:
    """``judge:NAME@N`` of the newest judge run on the project (probe runs aside)."""
    for run in store.runs(project):  # newest first
        if run.evaluator.startswith("judge:") and not run.signature.get("settings", {}).get(
            "probe"
        ):
            return f"{run.evaluator}@{run.version}"
    raise DriftError(
        f"no judge has run on {project!r}: a drift check compares a judge's answers now "
        "with its stored ones (run it with 'evaluate' first, or name one with --evaluator)"
    )


def _evaluator(store: Store, project: str, name: str) -> Evaluator:
    """The evaluator with a client that asks every request afresh."""
    from evaluators.registry import create_evaluator, get_evaluator_class
    from jobs.runner import build_context, stored_judge

    ctx = build_context(store)
    if ctx.llm is not None:
        ctx.llm.read_cache = False  # type: ignore[attr-defined]  # the LLMClient's flag
    kind = store.project(project).kind
    if name.startswith("judge:"):
        return stored_judge(store, kind, name, None, ctx)
    cls = get_evaluator_class(name)
    if not cls.applies_to(kind):
        raise DriftError(f"evaluator {name!r} does not apply to kind {kind!r}")
    return create_evaluator(name, None, ctx)


def answer(result: EvalResult, field: str) -> Any:
    """A result's answer on ``field``: a judge's own answer, else its score."""
    if "answer" in result.details and result.details["answer"] is not None:
        return result.details["answer"]
    return result.scores.get(field)


def _stored(store: Store, project: str, signature_text: str, field: str) -> dict[str, Any]:
    """item -> the first stored ok answer under the signature (oldest run first)."""
    out: dict[str, Any] = {}
    runs = [r for r in store.runs(project) if r.signature_text == signature_text]
    for run in sorted(runs, key=lambda r: r.id):
        for res in store.run_results(run.id):
            if res.status == "ok" and res.item_id not in out and answer(res, field) is not None:
                out[res.item_id] = answer(res, field)
    return out


def _people(store: Store, project: str, field: str) -> dict[str, Any]:
    """item -> the people's majority answer on ``field`` (ties left out)."""
    labels = store.annotations_frame(project)
    labels = labels[labels["field"] == field]
    out = {}
    for item, values in labels.groupby("item_id", sort=False)["value"]:
        top = majority(list(values))
        if top is not None:
            out[str(item)] = top
    return out


def check_drift(
    store: Store,
    project: str,
    evaluator: str | None = None,
    *,
    n_anchors: int | None = None,
    min_kappa: float | None = None,
    max_drop: float | None = None,
    field: str | None = None,
) -> DriftReport:
    """Re-judge the anchors of ``evaluator`` (default: the newest judge run on the
    project), choosing and storing them on the first check; record and return the check."""
    from alignment.drift_records import CheckRecord, anchors, record_check, save_anchors
    from common import event_loop
    from jobs.runner import select_items

    if min_kappa is not None and max_drop is not None:
        raise DriftError("give one bar: --min-kappa or --max-drop")
    name = evaluator or newest_judge(store, project)
    ev = _evaluator(store, project, name)
    ev.check_available()
    sig = ev.signature()
    fields = list(getattr(ev, "fields", ()) or ())
    field = field or (fields[0] if fields else None)
    stored = _stored(store, project, str(sig), field or "")
    if not stored:
        raise DriftError(
            f"{sig.evaluator} v{sig.version} (model {sig.model}) has no stored answers on "
            f"{project!r}: run it with 'evaluate' first, then check it against them"
        )
    if field is None:
        raise DriftError(f"cannot tell which field {name!r} scores: give --field")
    people = _people(store, project, field)
    notes: list[str] = []
    chosen = anchors(store, project, sig.evaluator)
    if not chosen:
        # worked examples the judge was shown would agree with people for free
        shown = set(sig.settings.get("few_shot_item_ids") or ())
        candidates = [i for i in stored if i not in shown]
        chosen = choose_anchors(candidates, people, n_anchors or ANCHORS, SEED)
        save_anchors(store, project, sig.evaluator, chosen, SEED)
        notes.append(f"anchors chosen now and stored: {', '.join(chosen)}")
    elif n_anchors is not None and n_anchors != len(chosen):
        notes.append(
            f"--anchors {n_anchors} ignored: the {len(chosen)} anchors chosen at the "
            "first check stay, so checks compare like with like"
        )
    items = select_items(store, project, list(chosen))
    results = event_loop.run(ev.evaluate(items))
    now = {r.item_id: answer(r, field) if r.status == "ok" else None for r in results}
    figures = compare(list(chosen), stored, now, people)
    v = verdict(figures, min_kappa, max_drop)
    report = DriftReport(sig.evaluator, sig.version, sig.model, field, chosen, figures, v, notes)
    record_check(
        store,
        project,
        CheckRecord(
            sig.evaluator,
            sig.version,
            sig.model,
            str(sig),
            field,
            len(chosen),
            {**figures.to_dict(), "why": v.why},
            v.bar,
            v.passed,
        ),
    )
    return report
