"""Autocalibration: items where people corrected a judge version become worked examples
of the judge's next version.

A reviewer reads the version diff, picks items where the judge's answer and the people's
differ, and saves them as few-shot examples (with the people's settled answer) on top of
the version's own examples. The new version's figures leave those items out (the leakage
guard), so it is judged only on items it did not see answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evaluators.judges.spec import FewShotSpec, JudgeError, JudgeSpec

if TYPE_CHECKING:
    from annotation_store import ProjectInfo, Store
    from annotation_store.store_judges import JudgeRecord
    from kinds.base import HumanField


def scale_step(spec: HumanField | None) -> float:
    """One step of a field's scale: the smallest gap between its numeric levels (0.2 on
    the six levels of 0-1, 1 on a 1-5 scale); 1.0 when it declares no numeric levels."""
    levels = sorted({float(v) for v in (spec.values if spec else ()) if isinstance(v, int | float)})
    gaps = [b - a for a, b in zip(levels, levels[1:], strict=False)]
    return min(gaps) if gaps else 1.0


def field_step(project: ProjectInfo, field: str) -> float:
    """:func:`scale_step` of the project's human field ``field`` (1.0 for another)."""
    specs = project.task_kind.human_fields(project.settings)
    return scale_step(next((f for f in specs if f.name == field), None))


def corrected_items(diff: pd.DataFrame, binary: bool, step: float = 1.0) -> list[str]:
    """Items of a version diff where the people disagree with the "to" version: another
    decision on a binary field, another label on a categorical one, a score at least
    ``step`` (one step of the scale, :func:`scale_step`) off the human mean otherwise."""
    out = []
    for item, score, human in zip(diff["item_id"], diff["score_b"], diff["human"], strict=True):
        if human is None or (isinstance(human, float) and np.isnan(human)):
            continue
        if isinstance(score, str):  # a label judge: another label than the people's
            off = score != human
        else:
            # the tolerance: 0.8 - 0.6 is a step of 0.2 even in floating point
            off = (score >= 0.5) != (human >= 0.5) if binary else abs(score - human) >= step - 1e-9
        if off:
            out.append(str(item))
    return out


def autocalibrate(
    store: Store,
    project: str,
    judge: str,
    item_ids: Sequence[str],
    *,
    version: int | None = None,
    created_by: str | None = None,
) -> JudgeRecord:
    """Save the judge's next version: ``version``'s definition (default: the latest) with
    ``item_ids`` added to its worked examples. JudgeError when nothing is picked, or an
    item has no settled human answer (see :func:`workbench_api.judges.with_examples`)."""
    from workbench_api.judges import save_judge

    picked = [str(i).strip() for i in item_ids if str(i).strip()]
    if not picked:
        raise JudgeError("pick at least one item people corrected")
    record = store.judge(judge, version)
    spec = JudgeSpec.model_validate(record.definition)
    if spec.few_shot.examples and spec.few_shot.project not in (None, project):
        raise JudgeError(
            f"version {record.version}'s worked examples come from {spec.few_shot.project!r}, "
            f"not {project!r}"
        )
    known = spec.few_shot_item_ids()
    again = [i for i in picked if i in known]
    if again:
        raise JudgeError(
            f"item {again[0]!r} is already a worked example of version {record.version}"
        )
    few = FewShotSpec(project=project, item_ids=[*known, *picked])
    definition: dict[str, Any] = spec.model_copy(update={"few_shot": few}).model_dump(mode="json")
    return save_judge(store, judge, definition, new=False, created_by=created_by)


def suggest_corrections(
    store: Store, project: str, judge: str, version: int | None = None
) -> list[str]:
    """Items where the people disagree with the judge version (its own worked examples
    and leaked items left out): candidates for :func:`autocalibrate`."""
    from alignment.diff import version_diff
    from alignment.inputs import load_field

    record = store.judge(judge, version)
    spec = JudgeSpec.model_validate(record.definition)
    fi = load_field(store, project, spec.fields[0])
    label = f"judge:{judge} v{record.version}"
    step = field_step(store.project(project), fi.field)
    return corrected_items(version_diff(fi, label, label), fi.binary, step)
