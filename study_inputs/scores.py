"""Evaluator scores per configuration (signature): the runs behind them, the probe runs
and the worked examples left out, and what a report states of each configuration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotation_store import ItemRecord, RunInfo, Store

#: Why an item's score is left out of a judge version's agreement figures.
FEW_SHOT_REASON = "few-shot examples"
#: The per-item reason when only the ids are known (results of another database).
FEW_SHOT_ITEM = "a few-shot example"


def few_shot_exclusions(
    store: Store, runs: Sequence[RunInfo], items: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Signature text -> the items left out of that version's figures: its worked
    examples and, for a stored judge, every item whose template text equals an example's
    (``evaluators/judges/leakage.py``): ``evaluator``, ``item_ids``, ``reasons`` (item ->
    why). Signatures without worked examples are left out. The agreement document, the
    alignment view and the reports all read this one function."""
    out: dict[str, dict[str, Any]] = {}
    for run in runs:
        settings = (run.signature or {}).get("settings") or {}
        ids = [str(i) for i in settings.get("few_shot_item_ids") or []]
        if not ids or not run.signature_text or run.signature_text in out:
            continue
        reasons = _judge_leaks(store, run, items) or {i: FEW_SHOT_ITEM for i in ids}
        out[run.signature_text] = {
            "evaluator": run.evaluator,
            "item_ids": list(reasons),
            "reasons": reasons,
        }
    return out


def _judge_leaks(
    store: Store, run: RunInfo, items: Mapping[str, Mapping[str, Any]]
) -> dict[str, str] | None:
    """The stored judge version's leaked items, None when it is not a stored judge."""
    from annotation_store import StoreError
    from evaluators.judges.evaluator import split_name
    from evaluators.judges.leakage import leaked_items
    from evaluators.judges.spec import JudgeSpec

    version = str((run.signature or {}).get("version") or "")
    if not run.evaluator.startswith("judge:") or not version.isdigit():
        return None
    try:
        name, _ = split_name(run.evaluator)
        record = store.judge(name, int(version))
        return leaked_items(JudgeSpec.model_validate(record.definition), items)
    except (StoreError, ValueError):  # imported results, or a definition no longer valid
        return None


def evaluator_signatures(runs: Sequence[RunInfo]) -> list[dict[str, Any]]:
    """One entry per distinct evaluator signature with its runs (oldest first)."""
    by_sig: dict[str, dict[str, Any]] = {}
    for run in sorted(runs, key=lambda r: r.id):
        key = run.signature_text or run.evaluator
        entry = by_sig.setdefault(
            key,
            {
                "evaluator": run.evaluator,
                "model": run.model,
                "signature": key,
                "source": run.source,
                "runs": [],
            },
        )
        entry["runs"].append(run.id)
    return list(by_sig.values())


def signature_setting(runs: Sequence[RunInfo], key: str) -> dict[str, str]:
    """Signature text -> the value of setting ``key`` it ran with (signatures without it
    left out)."""
    out = {}
    for run in runs:
        settings = run.signature.get("settings")
        value = settings.get(key) if isinstance(settings, Mapping) else None
        if value and run.signature_text:
            out[run.signature_text] = str(value)
    return out


def scale_mappings(runs: Sequence[RunInfo]) -> dict[str, str]:
    """Signature text -> the ``scale_mapping`` its 1-5 judge ran with (G-Eval,
    Prometheus), read from the signature's settings; so the bias counts can say it."""
    return signature_setting(runs, "scale_mapping")


def drop_few_shot(
    scores: pd.DataFrame,
    found: Mapping[str, Mapping[str, Any]],
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Scores without the items each judge version saw as worked examples (by content:
    :func:`few_shot_exclusions` gives ``found``), and per version how many
    items were left out and why (the same count the alignment view shows)."""
    if not found or scores.empty:
        return scores, []
    drop = np.zeros(len(scores), dtype=bool)
    excluded = []
    for sig, entry in found.items():
        drop |= (scores["signature"] == sig).to_numpy() & scores["item_id"].isin(
            entry["item_ids"]
        ).to_numpy()
        excluded.append(
            {
                "evaluator": entry["evaluator"],
                "signature": sig,
                "n_excluded": len(entry["item_ids"]),
                "reason": FEW_SHOT_REASON,
                "item_ids": entry["item_ids"],
                "reasons": entry["reasons"],
            }
        )
    return scores[~drop].reset_index(drop=True), excluded


def probe_signatures(runs: Sequence[RunInfo]) -> set[str]:
    """The signatures of a judge's probe runs (texts swapped, options reversed)."""
    return {
        r.signature_text
        for r in runs
        if ((r.signature or {}).get("settings") or {}).get("probe") and r.signature_text
    }


def drop_probe_runs(scores: pd.DataFrame, runs: Sequence[RunInfo]) -> pd.DataFrame:
    """Scores without a judge's probe runs (texts swapped, options reversed): they measure
    the judge's biases on the Alignment page, they are not another evaluator."""
    probes = probe_signatures(runs)
    if not probes or scores.empty:
        return scores
    return scores[~scores["signature"].isin(probes)].reset_index(drop=True)


@dataclass(frozen=True)
class EvaluatorScores:
    """One project's evaluator scores as the figures take them: ``scores`` (probe runs and
    each version's worked examples left out), the ``runs`` behind them and ``excluded``
    (per version, the items left out and why; ``drop_few_shot``)."""

    scores: pd.DataFrame
    runs: list[RunInfo]
    excluded: list[dict[str, Any]]
    #: ``evaluator_signatures``; signature -> ``scale_mapping`` / ``run_average`` setting
    signatures: list[dict[str, Any]]
    scale_mappings: dict[str, str]
    run_averages: dict[str, str]


def load_scores(
    store: Store, project: str, items: Sequence[ItemRecord], *, compact: bool = False
) -> EvaluatorScores:
    """The project's evaluator scores per configuration, probe runs and worked examples
    left out, and what a report states of each configuration (``compact``: the text
    columns as categoricals, see ``Store.scores_frame``)."""
    runs = store.runs(project)
    leaks = few_shot_exclusions(store, runs, {i.item_id: i.fields for i in items})
    read = store.scores_frame(project, categorical=compact)
    scores, few_shot = drop_few_shot(drop_probe_runs(read, runs), leaks)
    return EvaluatorScores(
        scores,
        list(runs),
        few_shot,
        evaluator_signatures(runs),
        scale_mappings(runs),
        signature_setting(runs, "run_average"),
    )
