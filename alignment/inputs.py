"""What the alignment view needs of one project and field: the human labels and reference,
the item space with its dev/test split, and every version's stored results."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from agreement.binary import dev_test_split
from agreement.evaluator import DenseReference, ItemSpace
from agreement.inputs import (
    AgreementInputs,
    Reference,
    derived_labels,
    field_frame,
    human_reference,
    known_scale,
    numeric_values,
)
from alignment.versions import Version, load_versions, version_results
from kinds import FieldType

if TYPE_CHECKING:
    from annotation_store import Store


class AlignmentError(ValueError):
    """A request the alignment view cannot answer (unknown field, nothing scored)."""


@dataclass
class FieldInputs:
    """One field of one project, with every evaluator version that scored it."""

    inputs: AgreementInputs
    field: str
    field_type: str  # a FieldType value, or "derived"
    labels: pd.DataFrame  # item_id, annotator, value (numeric)
    reference: Reference
    dense: DenseReference
    binary_against: DenseReference | None
    scale: tuple[float, float] | None
    space: ItemSpace
    split_rule: str
    versions: list[Version]
    results: dict[str, pd.DataFrame]  # signature text -> version_results
    fields: list[str]  # every field some version scored
    #: Figures that depend on the field's inputs only, not on a version (the people's
    #: alpha, item lengths): computed once for every version that asks (see ``shared``).
    _shared: dict[Hashable, Any] = dataclasses.field(
        default_factory=dict, repr=False, compare=False
    )

    def shared(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per ``key`` for these inputs (the versions of a field share
        their people; read-only results)."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    @property
    def binary(self) -> bool:
        """True for a binary human field (decisions, kappa)."""
        return self.field_type == FieldType.BINARY.value


def numeric_fields(inputs: AgreementInputs) -> dict[str, str]:
    """Numeric human fields and derived scores of the kind: name -> type."""
    out = {f.name: str(f.type) for f in inputs.kind.human_fields(inputs.settings) if f.numeric}
    out.update({d.name: "derived" for d in inputs.kind.derived_scores})
    return out


def scored_fields(results: dict[str, pd.DataFrame], candidates: dict[str, str]) -> list[str]:
    """The candidate fields some stored result has a score for, in the kind's order."""
    seen: set[str] = set()
    wanted = set(candidates)
    for frame in results.values():
        for scores in frame["scores"]:
            seen.update(k for k, v in scores.items() if v is not None)
            if wanted <= seen:  # usually the first result: the other 40,000 add nothing
                return list(candidates)
    return [name for name in candidates if name in seen]


def choose_field(
    project: str, candidates: dict[str, str], scored: list[str], field: str | None
) -> str:
    """``field`` if it is a numeric field of the kind, else (None) the first scored one."""
    if field is None:
        if not scored:
            raise AlignmentError(f"no evaluator has scored a numeric field of {project!r} yet")
        return scored[0]
    if field not in candidates:
        raise AlignmentError(
            f"{field!r} is not a numeric human field or derived score of {project!r} "
            f"(choose from {', '.join(candidates)})"
        )
    return field


def field_reference(
    inputs: AgreementInputs, field: str, ftype: str
) -> tuple[pd.DataFrame, Reference]:
    """The field's numeric labels and its human reference (mean; majority if binary)."""
    if ftype == "derived":
        labels = field_frame(derived_labels(inputs), field)
    else:
        labels = field_frame(inputs.annotations, field)
    labels = numeric_values(labels)
    binary = ftype == FieldType.BINARY.value
    return labels, human_reference(labels, field, binary, inputs.reference)


def load_field(
    store: Store, project: str, field: str | None = None, inputs: AgreementInputs | None = None
) -> FieldInputs:
    """Load one field (default: the first one some version scored); ``inputs``: the
    project's study inputs already loaded (``study_inputs.load``; read-only)."""
    from study_inputs.load import load_inputs

    if inputs is None:
        inputs = load_inputs(store, project)
    versions = load_versions(store, project)
    leaks = {e["signature"]: e["reasons"] for e in inputs.meta.get("excluded") or []}
    for v in versions:
        v.excluded = dict(leaks.get(v.signature) or {})
    results = {v.signature: version_results(store, v) for v in versions}
    candidates = numeric_fields(inputs)
    fields = scored_fields(results, candidates)
    field = choose_field(project, candidates, fields, field)
    ftype = candidates[field]
    labels, reference = field_reference(inputs, field, ftype)
    binary = ftype == FieldType.BINARY.value
    items = inputs.items
    dev, test, rule = dev_test_split(list(items["item_id"]), list(items["split"]))
    all_ids = pd.concat([f["item_id"] for f in results.values()] + [items["item_id"]])
    space = ItemSpace.build(items, all_ids.astype(object), dev, test)
    dense = DenseReference.of(reference, space)
    binary_fields = [
        f.name for f in inputs.kind.human_fields(inputs.settings) if f.type is FieldType.BINARY
    ]
    against = None
    if binary:
        against = dense
    elif len(binary_fields) == 1:
        b = binary_fields[0]
        ref_b = human_reference(
            numeric_values(field_frame(inputs.annotations, b)), b, True, inputs.reference
        )
        against = DenseReference.of(ref_b, space)
    return FieldInputs(
        inputs,
        field,
        ftype,
        labels,
        reference,
        dense,
        against,
        known_scale(inputs.kind, inputs.settings, field),
        space,
        rule,
        versions,
        results,
        fields,
    )
