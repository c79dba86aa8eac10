"""The meta-evaluation of one field over loaded inputs, and the agreement document's
meta-evaluation when the project names its columns (``workbench_api.metaeval`` loads a
project for ``cli.py metaeval`` and the Agreement page)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from agreement import AgreementDocument, AgreementInputs
    from agreement.metaeval.document import MetaEvaluation

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
    workers: int = 1,
) -> MetaEvaluation:
    """The meta-evaluation of ``field`` over loaded inputs (``workers``: processes)."""
    from agreement.metaeval.document import meta_evaluate
    from agreement.metaeval.grid import build_grid

    grid = build_grid(inputs, field, system=system, group=group, evaluators=evaluators)
    return meta_evaluate(
        grid, n_resamples=n_resamples, seed=seed, statistics=statistics, workers=workers
    )


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


def with_metaeval(
    doc: AgreementDocument,
    inputs: AgreementInputs,
    fields: Sequence[str] | None,
    n_resamples: int,
    seed: int,
) -> AgreementDocument:
    """Attach the meta-evaluation when the project names its columns (setting
    ``metaeval``); a setting that does not fit the data is a note, not a failure."""
    spec = configured(inputs.settings)
    if spec is None or (fields is not None and spec["field"] not in fields):
        return doc
    from agreement.metaeval.grid import MetaEvalError

    try:
        doc.metaeval = metaeval_from_inputs(
            inputs,
            spec["field"],
            group=spec["group"],
            system=spec["system"],
            n_resamples=n_resamples,
            seed=seed,
        )
    except MetaEvalError as e:
        doc.notes.append(f"meta-evaluation left out: {e}")
    return doc
