"""Evaluators, the agreement document (typed, as frames, as figures) and reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from agreement.document import AgreementDocument
    from annotation_store import Store
    from study_inputs.load import StudyInputs


def agreement(
    store: Store,
    project: str,
    *,
    fields: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    timeline: bool = True,
    reference: str = "majority",
    pairs: bool = False,
    metaeval: bool = False,
    inputs: StudyInputs | None = None,
) -> AgreementDocument:
    """The agreement document: typed results per field and evaluator (``.to_dict()``
    gives the JSON that ``workbench agreement --json`` prints). ``reference``: what
    evaluators are compared with on nominal fields (``majority``: the people's mean and
    majority; ``dawid_skene`` / ``mace``: those aggregated labels). ``pairs``: every
    annotator pair's Cohen's kappa even in a crowd (above 30 annotators the document
    summarises them). ``metaeval``: include the meta-evaluation the project names
    (setting ``metaeval``; ``cli.py metaeval`` computes any other). ``inputs``: the
    project's inputs already loaded for ``reference`` (read-only)."""
    from reports.data import agreement_document

    if resamples < 0:
        raise ValueError("resamples must be >= 0")
    return agreement_document(
        store,
        project,
        fields=fields,
        n_resamples=resamples,
        seed=seed,
        timeline=timeline,
        reference_method=reference,
        pairs=pairs,
        metaeval=metaeval,
        inputs=inputs,
    )


def agreement_frames(doc: AgreementDocument) -> dict[str, pd.DataFrame]:
    """The document as frames: ``agreement`` (one row per statistic, with CI and n) and
    one ``ratings_<field>`` reliability matrix (items x annotators) per human field."""
    from interop.agreement_bundle import agreement_frame

    frames = {"agreement": agreement_frame(doc.rows())}
    for name, field in doc.fields.items():
        frames[f"ratings_{name}"] = field.ratings.frame()
    return frames


def figures(doc: AgreementDocument) -> dict[str, go.Figure]:
    """The app's plotly figures of the document, by name, in reading order."""
    from reports.figures import document_figures

    return dict(document_figures(doc))


def export_agreement_bundle(
    store: Store,
    project: str,
    out: str | Path,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    metaeval: bool = False,
) -> list[Path]:
    """Write ``agreement`` and ``disagreements`` as Parquet and CSV into the folder ``out``
    (``pd.read_parquet(out / "agreement.parquet")`` loads one); ``metaeval``: with the
    meta-evaluation's rows the project names (setting ``metaeval``)."""
    from interop.agreement_bundle import write_bundle
    from workbench_api.audit import disagreements_frame

    doc = agreement(
        store, project, resamples=resamples, seed=seed, timeline=False, metaeval=metaeval
    )
    frames = {
        "agreement": agreement_frames(doc)["agreement"],
        "disagreements": disagreements_frame(store, project),
    }
    return write_bundle(frames, out)
