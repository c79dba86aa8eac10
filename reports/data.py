"""From a Store to the agreement engine's inputs, and the provenance a report states."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from agreement import AgreementDocument, AgreementInputs, build_document
from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.statistics import Statistic
from annotation_store import ItemRecord, RunInfo, Store


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


def scale_mappings(runs: Sequence[RunInfo]) -> dict[str, str]:
    """Signature text -> the ``scale_mapping`` its 1-5 judge ran with (G-Eval,
    Prometheus), read from the signature's settings; so the bias counts can say it."""
    out = {}
    for run in runs:
        settings = run.signature.get("settings")
        mapping = settings.get("scale_mapping") if isinstance(settings, Mapping) else None
        if mapping and run.signature_text:
            out[run.signature_text] = str(mapping)
    return out


def load_inputs(store: Store, name: str, reference: pd.DataFrame | None = None) -> AgreementInputs:
    """One project's items, submitted labels and evaluator scores as tidy frames.

    ``reference`` (item_id, field, value) replaces the human mean / majority for those
    items in every evaluator comparison (e.g. adjudicated labels).
    """
    project = store.project(name)
    items = store.items(name)
    item_frame = pd.DataFrame(
        [(i.item_id, i.split, i.generator, i.fields) for i in items],
        columns=["item_id", "split", "generator", "fields"],
    )
    annotations = store.annotations_frame(name)
    scores = store.scores_frame(name)
    runs = store.runs(name)
    meta = {
        "guideline_version": project.guideline_version,
        "dataset_hash": dataset_hash(items),
        "n_items_total": len(items),
        "signatures": evaluator_signatures(runs),
        **({"scale_mappings": maps} if (maps := scale_mappings(runs)) else {}),
        "reference_override": reference is not None and not reference.empty,
    }
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


def agreement_document(
    store: Store,
    name: str,
    *,
    reference: pd.DataFrame | None = None,
    fields: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    timeline: bool = True,
    keep: Callable[[Statistic], bool] | None = None,
) -> AgreementDocument:
    """Load the project and compute its agreement document (what the CLI prints)."""
    inputs = load_inputs(store, name, reference)
    return build_document(
        inputs,
        fields=fields,
        n_resamples=n_resamples,
        seed=seed,
        timeline=timeline,
        keep=keep,
    )
