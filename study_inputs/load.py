"""From a Store to the agreement engine's inputs, and the provenance a report states."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from agreement import AgreementDocument, AgreementInputs, build_document
from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.measures import Measure
from annotation_store import ItemRecord, RunInfo, Store
from annotation_store.crowd.study_quality import for_agreement
from reports.metaeval_data import with_metaeval


def dataset_hash(items: Sequence[ItemRecord]) -> str:
    """sha256 of the items' canonical JSON (id, fields, split, generator; keys sorted)."""
    canon = [
        {"item_id": i.item_id, "fields": i.fields, "split": i.split, "generator": i.generator}
        for i in sorted(items, key=lambda i: i.item_id)
    ]
    text = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
    :func:`reports.judges.few_shot_exclusions` gives ``found``), and per version how many
    items were left out and why (the same count the alignment view shows)."""
    from reports.judges import FEW_SHOT_REASON

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


def drop_probe_runs(scores: pd.DataFrame, runs: Sequence[RunInfo]) -> pd.DataFrame:
    """Scores without a judge's probe runs (texts swapped, options reversed): they measure
    the judge's biases on the Alignment page, they are not another evaluator."""
    probes = {
        r.signature_text
        for r in runs
        if ((r.signature or {}).get("settings") or {}).get("probe") and r.signature_text
    }
    if not probes or scores.empty:
        return scores
    return scores[~scores["signature"].isin(probes)].reset_index(drop=True)


def item_counts(store: Store, name: str, items: Sequence[ItemRecord]) -> dict[str, int]:
    """``n_items_total``: the items people annotate (gold items left out, as on Progress
    and in every agreement figure); ``n_gold_items``: the gold (check) items."""
    from annotation_store.studies.gold import gold_items

    golds = set(gold_items(store, name))
    n_gold = sum(1 for i in items if i.item_id in golds)
    return {"n_items_total": len(items) - n_gold, "n_gold_items": n_gold}


def load_inputs(
    store: Store,
    name: str,
    reference: pd.DataFrame | None = None,
    *,
    reference_method: str = "majority",
    exclusions: bool = True,
) -> AgreementInputs:
    """One project's items, submitted labels and evaluator scores as tidy frames.

    ``reference`` (item_id, field, value) replaces the human mean / majority for those
    items in every evaluator comparison (e.g. adjudicated labels). ``reference_method``
    ``dawid_skene`` or ``mace`` first replaces it, on nominal fields, by those aggregated
    labels (adjudicated labels still win). Excluded annotators' labels are left out
    (``exclusions=False``: everyone's labels); ``meta["exclusions"]`` says who and why.
    """
    from agreement.exclusions import exclusion_summary, without_excluded
    from reports.quality import aggregated_reference

    project = store.project(name)
    items = store.items(name)
    item_frame = pd.DataFrame(
        [(i.item_id, i.split, i.generator, i.fields) for i in items],
        columns=["item_id", "split", "generator", "fields"],
    )
    # The one filter between stored labels and agreement: no gold items, no worker who
    # failed the study's qualification.
    annotations = for_agreement(store, name, store.annotations_frame(name))
    excluded = store.excluded_annotators(name) if exclusions else {}
    runs = store.runs(name)
    from reports.judges import few_shot_exclusions

    leaks = few_shot_exclusions(store, runs, {i.item_id: i.fields for i in items})
    scores, few_shot = drop_few_shot(drop_probe_runs(store.scores_frame(name), runs), leaks)
    meta = {
        "guideline_version": project.guideline_version,
        "dataset_hash": dataset_hash(items),
        **item_counts(store, name, items),
        "signatures": evaluator_signatures(runs),
        **({"scale_mappings": maps} if (maps := scale_mappings(runs)) else {}),
        # FinGrAct's run_average: "rounded" item means are rounded to whole points
        **({"run_averages": avg} if (avg := signature_setting(runs, "run_average")) else {}),
        "reference_override": reference is not None and not reference.empty,
        **({"excluded": few_shot} if few_shot else {}),
    }
    if excluded:
        meta["exclusions"] = exclusion_summary(annotations, excluded)
        annotations = without_excluded(annotations, excluded)
    aggregated = aggregated_reference(store, name, reference_method)
    if aggregated is not None:
        meta["reference"] = reference_method
        # adjudicated rows come last: the reference keeps an item's last value
        reference = pd.concat([aggregated, reference], ignore_index=True)
    return AgreementInputs(
        name,
        project.task_kind,
        dict(project.settings),
        item_frame,
        annotations,
        scores,
        reference,
        meta,
    )


def with_everyone(
    doc: AgreementDocument, store: Store, inputs: AgreementInputs, **options: Any
) -> AgreementDocument:
    """Attach the exclusions section: who was left out and why, and the fields, derived
    scores and evaluator figures computed with everyone's labels (no-op without
    exclusions)."""
    summary = inputs.meta.get("exclusions")
    doc.meta.pop("exclusions", None)  # stated once, in the document's own section
    if not summary:
        return doc
    everyone = replace(
        inputs,
        annotations=for_agreement(store, inputs.project, store.annotations_frame(inputs.project)),
    )
    full = build_document(everyone, timeline=False, **options).to_dict()
    doc.exclusions = {
        **summary,
        "with_excluded": {k: full[k] for k in ("fields", "derived", "evaluators", "calibrated")},
    }
    return doc


def agreement_document(
    store: Store,
    name: str,
    *,
    reference: pd.DataFrame | None = None,
    fields: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    timeline: bool = True,
    keep: Callable[[Measure], bool] | None = None,
    reference_method: str = "majority",
    pairs: bool = False,
    metaeval: bool = False,
) -> AgreementDocument:
    """Load the project and compute its agreement document (what the CLI prints);
    ``pairs``: every annotator pair of a crowd (else summarised); ``metaeval``: attach the
    meta-evaluation the project names (setting ``metaeval``), left out by default as it
    costs more than the rest of the document and is drawn only where it is shown."""
    inputs = load_inputs(store, name, reference, reference_method=reference_method)
    options = {
        "fields": fields,
        "n_resamples": n_resamples,
        "seed": seed,
        "keep": keep,
        "pairs": pairs,
    }
    doc = build_document(inputs, timeline=timeline, **options)
    if metaeval:
        with_metaeval(doc, inputs, fields, n_resamples, seed)
    return with_alarms(with_everyone(doc, store, inputs, **options), store, inputs)


def with_alarms(doc: AgreementDocument, store: Store, inputs: AgreementInputs) -> AgreementDocument:
    """Attach the data-quality alarms (``alarms``: identical pairs, straight-lining,
    chance-level annotators, speeders) over the labels the figures use: excluding an
    annotator clears their alarms."""
    excluded = [a["annotator"] for a in (doc.exclusions or {}).get("annotators", [])]
    doc.alarms = _alarms(store, inputs.project, inputs.annotations, excluded)
    return doc


def project_alarms(store: Store, name: str) -> list[dict[str, Any]]:
    """The project's data-quality alarms alone (the Progress page), as in the document."""
    inputs = load_inputs(store, name)
    summary = inputs.meta.get("exclusions") or {}
    excluded = [a["annotator"] for a in summary.get("annotators", [])]
    return _alarms(store, name, inputs.annotations, excluded)


def _alarms(
    store: Store, name: str, annotations: pd.DataFrame, excluded: Sequence[str]
) -> list[dict[str, Any]]:
    from agreement.alarms import data_quality_alarms
    from annotation_store.crowd.study_quality import alarm_times

    times, source = alarm_times(store, name)
    times = times[~times["annotator"].isin(list(excluded))]
    return [a.to_dict() for a in data_quality_alarms(annotations, times, source)]
