"""From a Store to the agreement engine's inputs (labels, references, scores), and the
provenance a report states."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import pandas as pd

from agreement import AgreementInputs
from annotation_store import ItemRecord, Store
from study_inputs.labels import load_labels
from study_inputs.references import aggregated_reference
from study_inputs.scores import load_scores, probe_signatures


def dataset_hash(items: Sequence[ItemRecord]) -> str:
    """sha256 of the items' canonical JSON (id, fields, split, generator; keys sorted)."""
    canon = [
        {"item_id": i.item_id, "fields": i.fields, "split": i.split, "generator": i.generator}
        for i in sorted(items, key=lambda i: i.item_id)
    ]
    text = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def item_counts(items: Sequence[ItemRecord], golds: Collection[str]) -> dict[str, int]:
    """``n_items_total``: the items people annotate (gold items left out, as on Progress
    and in every agreement figure); ``n_gold_items``: the gold (check) items."""
    n_gold = sum(1 for i in items if i.item_id in golds)
    return {"n_items_total": len(items) - n_gold, "n_gold_items": n_gold}


@dataclass(frozen=True)
class StudyInputs(AgreementInputs):
    """The engine's inputs and what the sections beside the figures read from the same
    load: ``everyone``, the labels with the excluded annotators (the exclusions section);
    ``times`` and ``time_source``, what the speeder alarm reads (``StudyChecks``)."""

    everyone: pd.DataFrame | None = None
    times: pd.DataFrame | None = None
    time_source: str | None = None


def load_inputs(
    store: Store,
    name: str,
    reference: pd.DataFrame | None = None,
    *,
    reference_method: str = "majority",
    exclusions: bool = True,
    times: bool = True,
    compact: bool = False,
) -> StudyInputs:
    """One project's items, submitted labels and evaluator scores as tidy frames.

    ``reference`` (item_id, field, value) replaces the human mean / majority for those
    items in every evaluator comparison (e.g. adjudicated labels). ``reference_method``
    ``dawid_skene`` or ``mace`` first replaces it, on nominal fields, by those aggregated
    labels (adjudicated labels still win). Excluded annotators' labels are left out
    (``exclusions=False``: everyone's labels); ``meta["exclusions"]`` says who and why.
    ``times=False`` leaves the speeder alarm's times out (``times`` empty): a caller that
    never reads them saves their queries. ``compact=True`` reads the labels' and scores'
    name columns (item ids, annotators, fields, evaluators, signatures, ...) as
    categoricals instead of strings: at 100,000 items about 300 MB less. The agreement
    document is the same either way (the CLI reads them so; the app's pages, whose
    views treat these columns as strings, do not).
    """
    project = store.project(name)
    kind = project.task_kind
    items = store.items(name)
    item_frame = pd.DataFrame(
        [(i.item_id, i.split, i.generator, i.fields) for i in items],
        columns=["item_id", "split", "generator", "fields"],
    )
    labels = load_labels(store, name, exclusions=exclusions, times=times, compact=compact)
    scored = load_scores(store, name, items, compact=compact)
    meta = {
        "guideline_version": project.guideline_version,
        "dataset_hash": dataset_hash(items),
        **item_counts(items, labels.checks.gold_items),
        "signatures": scored.signatures,
        **({"scale_mappings": scored.scale_mappings} if scored.scale_mappings else {}),
        # FinGrAct's run_average: "rounded" item means are rounded to whole points
        **({"run_averages": scored.run_averages} if scored.run_averages else {}),
        "reference_override": reference is not None and not reference.empty,
        **({"excluded": scored.excluded} if scored.excluded else {}),
    }
    if labels.summary:
        meta["exclusions"] = labels.summary
    aggregated = aggregated_reference(store, name, reference_method)
    if aggregated is not None:
        meta["reference"] = reference_method
        # adjudicated rows come last: the reference keeps an item's last value
        reference = pd.concat([aggregated, reference], ignore_index=True)
    return StudyInputs(
        name,
        kind,
        dict(project.settings),
        item_frame,
        labels.labels,
        scored.scores,
        reference,
        meta,
        everyone=labels.everyone,
        times=labels.checks.times,
        time_source=labels.checks.time_source,
    )


def all_scores(store: Store, project: str, inputs: StudyInputs) -> pd.DataFrame:
    """``store.scores_frame(project)``, probe runs and worked examples included: the frame
    ``inputs`` (``load_inputs`` of ``project``, not compact) holds when it left nothing out,
    so a caller that keeps both keeps one frame (27 MB at 10,000 items), else a new read."""
    if "excluded" in inputs.meta or probe_signatures(store.runs(project)):
        return store.scores_frame(project)
    return inputs.scores
