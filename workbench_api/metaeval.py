"""The meta-evaluation of one field of a project (docs/metaeval.md): what
``cli.py metaeval`` prints and the Agreement page's Meta-evaluation tab draws."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agreement.metaeval.document import MetaEvaluation
    from annotation_store import Store


def metaeval(
    store: Store,
    project: str,
    field: str,
    *,
    reference: str = "majority",
    **options: Any,
) -> MetaEvaluation:
    """Load the project as ``agreement`` does (same people's reference) and meta-evaluate
    ``field``; ``options``: group, system, evaluators, statistics, n_resamples, seed,
    workers (processes; 1, the default, where forking is unsafe, as in the app).
    Raises ``agreement.metaeval.MetaEvalError`` (one line) for a request that does not fit."""
    from reports.metaeval_data import metaeval_from_inputs
    from study_inputs.load import load_inputs

    # the meta-evaluation reads no time on task: the speeder alarm's queries are skipped
    inputs = load_inputs(store, project, reference_method=reference, times=False)
    return metaeval_from_inputs(inputs, field, **options)
