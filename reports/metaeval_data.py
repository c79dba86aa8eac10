"""From a Store to the meta-evaluation of one field (``cli.py metaeval``, the Agreement
page's Meta-evaluation section, and the agreement document when the project names its
columns)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from agreement import AgreementInputs
    from agreement.metaeval import MetaEvaluation
    from annotation_store import Store

#: The project setting naming the meta-evaluation's columns, e.g.
#: ``{"field": "resolution", "group": "input", "system": "generator"}``.
SETTING = "metaeval"


def metaeval_from_inputs(
    inputs: AgreementInputs,
    field: str,
    *,
    group: str | None = None,
    system: str = "generator",
    evaluators: Sequence[str] | None = None,
    statistics: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MetaEvaluation:
    """The meta-evaluation of ``field`` over loaded inputs."""
    from agreement.metaeval import build_grid, meta_evaluate

    grid = build_grid(inputs, field, system=system, group=group, evaluators=evaluators)
    return meta_evaluate(grid, n_resamples=n_resamples, seed=seed, statistics=statistics)


def metaeval_document(
    store: Store,
    project: str,
    field: str,
    *,
    reference_method: str = "majority",
    **options: Any,
) -> MetaEvaluation:
    """Load the project (as ``agreement`` does) and meta-evaluate ``field``."""
    from reports.data import load_inputs

    inputs = load_inputs(store, project, reference_method=reference_method)
    return metaeval_from_inputs(inputs, field, **options)


def configured(settings: Mapping[str, Any]) -> dict[str, Any] | None:
    """The project's meta-evaluation setting (field, group, system), if it has one."""
    spec = settings.get(SETTING)
    if not isinstance(spec, Mapping) or not spec.get("field"):
        return None
    return {
        "field": str(spec["field"]),
        "group": spec.get("group") or None,
        "system": spec.get("system") or "generator",
    }
