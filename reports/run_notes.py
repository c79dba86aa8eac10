"""What each evaluator configuration's figures mean, as the report states it.

For the newest run of every configuration (evaluator, model, signature) of a project,
the evaluator's :meth:`~evaluators.base.Evaluator.run_notes` say which settings change
the meaning of its figures (the 1-5 -> 0-5 mapping behind correlations and bias counts,
decoding, G-Eval's score mode, FinGrAct's link questions, Bi-Fact's frozen facts), which
NLI backend ran, the retriever's fallbacks, and corpus figures such as SGSAcc per
utterance and per act beside the human ``faithful`` field at both levels.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from annotation_store import RunInfo, Store
from common.evaluator_labels import config_labels, config_of


def human_means(store: Store, project: str) -> dict[str, dict[str, Any]]:
    """item id -> field -> mean of the submitted numeric human labels."""
    frame = store.annotations_frame(project)
    if frame.empty:
        return {}
    values = pd.to_numeric(frame["value"], errors="coerce")
    means = frame.assign(value=values).dropna(subset=["value"])
    grouped = means.groupby(["item_id", "field"])["value"].mean()
    out: dict[str, dict[str, Any]] = {}
    for (item_id, name), mean in grouped.items():
        out.setdefault(str(item_id), {})[str(name)] = float(mean)
    return out


def run_notes(store: Store, project: str) -> list[dict[str, Any]]:
    """``{"label", "run", "notes"}`` for the newest finished run of each configuration."""
    from evaluators.base import Evaluator
    from evaluators.registry import get_evaluator_class

    newest: dict[tuple[str, str | None, str], RunInfo] = {}
    for run in store.runs(project):  # newest first
        if run.status != "done":
            continue
        newest.setdefault(config_of(run.evaluator, run.model, run.signature_text), run)
    labels = config_labels(newest)
    human: dict[str, dict[str, Any]] | None = None
    out = []
    for config, run in sorted(newest.items(), key=lambda kv: labels[kv[0]]):
        try:
            cls = get_evaluator_class(run.evaluator)
        except Exception:  # imported scores of an evaluator this installation does not know
            continue
        if cls.run_notes.__func__ is Evaluator.run_notes.__func__:  # type: ignore[attr-defined]
            continue  # nothing to say: do not read the run
        if human is None:
            human = human_means(store, project)
        notes = cls.run_notes(store.run_results(run.id), human)
        if notes:
            out.append({"label": labels[config], "run": run.id, "notes": notes})
    return out


def notes_text(entries: list[dict[str, Any]]) -> str:
    """One line for the report's provenance list."""
    return (
        " | ".join(f"{e['label']} (run {e['run']}): " + "; ".join(e["notes"]) for e in entries)
        or "none"
    )
