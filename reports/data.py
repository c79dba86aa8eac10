"""A project's agreement document: its inputs (``study_inputs``) through the engine, with
the exclusions section, the data-quality alarms and (asked for) the meta-evaluation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from agreement import AgreementDocument, build_document
from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.measures import Measure
from annotation_store import Store
from reports.metaeval_data import with_metaeval
from study_inputs.load import StudyInputs, load_inputs


def with_everyone(doc: AgreementDocument, inputs: StudyInputs, **options: Any) -> AgreementDocument:
    """Attach the exclusions section: who was left out and why, and the fields, derived
    scores and evaluator figures computed with everyone's labels (no-op without
    exclusions)."""
    summary = inputs.meta.get("exclusions")
    doc.meta.pop("exclusions", None)  # stated once, in the document's own section
    if not summary:
        return doc
    full = build_document(
        replace(inputs, annotations=inputs.everyone), timeline=False, **options
    ).to_dict()
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
    inputs: StudyInputs | None = None,
) -> AgreementDocument:
    """Load the project and compute its agreement document (what the CLI prints);
    ``pairs``: every annotator pair of a crowd (else summarised); ``metaeval``: attach the
    meta-evaluation the project names (setting ``metaeval``), left out by default as it
    costs more than the rest of the document and is drawn only where it is shown;
    ``inputs``: the project's inputs already loaded for ``reference_method`` (no
    ``reference``), read-only."""
    if inputs is None or reference is not None:
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
    return with_alarms(with_everyone(doc, inputs, **options), inputs)


def with_alarms(doc: AgreementDocument, inputs: StudyInputs) -> AgreementDocument:
    """Attach the data-quality alarms (``alarms``: identical pairs, straight-lining,
    chance-level annotators, speeders) over the labels the figures use: excluding an
    annotator clears their alarms."""
    excluded = [a["annotator"] for a in (doc.exclusions or {}).get("annotators", [])]
    doc.alarms = _alarms(inputs, excluded)
    return doc


def project_alarms(store: Store, name: str) -> list[dict[str, Any]]:
    """The project's data-quality alarms alone (the Progress page), as in the document."""
    inputs = load_inputs(store, name)
    summary = inputs.meta.get("exclusions") or {}
    excluded = [a["annotator"] for a in summary.get("annotators", [])]
    return _alarms(inputs, excluded)


def _alarms(inputs: StudyInputs, excluded: Sequence[str]) -> list[dict[str, Any]]:
    from agreement.alarms import data_quality_alarms

    times = inputs.times
    times = times[~times["annotator"].isin(list(excluded))]
    return [a.to_dict() for a in data_quality_alarms(inputs.annotations, times, inputs.time_source)]
