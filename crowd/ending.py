"""How a crowd worker's annotation ends: a completion code is earned, never computed.

When the queue has nothing more for a worker, the outcome is decided here:

- ``stopped`` (screen-out): a check failed (training, gold with skipped gold items
  counted as misses, speeder);
- survey, then ``done`` with the completion code: the worker SUBMITTED the quota (the
  project's ``quota``; without one, at least one item). Skipped items never count;
- ``full``: the pool ran out before they reached the quota without them skipping
  (typically: they arrived when every item had its annotators). Its own code, never
  the completion code;
- ``incomplete``: they skipped their way to an empty queue. No code.

The completion code is the study's fixed one, or an HMAC under the deployment's secret
(:mod:`crowd.codes`); it is written only by :func:`_complete`, which
checks again that it was earned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from crowd import codes as crowd_codes
from crowd import study_quality as crowd_quality
from crowd import workers as crowd
from crowd.workers import Participant
from studies import gold
from studies.assignments import annotation_settings, own_counts
from studies.flow_settings import StudySettings, study_of


def required_items(settings: Mapping[str, Any]) -> int:
    """Submitted items a worker needs for the completion code: the quota, else one."""
    return annotation_settings(settings).quota or 1


def failed_check(store: Store, project: str, annotator: str) -> str | None:
    """The study check the worker failed (a short reason), or None when they passed."""
    study = study_of(store.project(project).settings)
    part = crowd.participant(store, project, annotator)
    if study.training and (part is None or part.qualified is not True):
        return "training not passed"
    if study.gold_threshold > 0:
        right, answered = gold.gold_accuracy(store, project).get(annotator, (0, 0))
        tried = answered + _skipped_gold(store, project, annotator)
        if tried >= study.gold_min and right < study.gold_threshold * tried:
            return f"gold accuracy {right}/{tried} below {study.gold_threshold:.0%}"
    if annotator in crowd_quality.speeders(store, project):
        return "median active time far below the other workers'"
    return None


def _skipped_gold(store: Store, project: str, annotator: str) -> int:
    golds = set(gold.gold_items(store, project))
    if not golds:
        return 0
    frame = store.progress_frame(project)
    mine = frame[(frame["annotator"] == annotator) & (frame["status"] == "skipped")]
    return int(mine["item_id"].isin(golds).sum())


def finish_annotation(store: Store, project: str, annotator: str) -> Participant:
    """The queue is empty for the worker: screen out, survey / completion, full or
    incomplete (see the module docstring). Already past annotation (a second browser
    got there first): the worker's standing as it is."""
    part = crowd.participant(store, project, annotator)
    if part is not None and part.stage in ("survey", "done", *crowd.STOPPED):
        return part
    _at_stage(store, project, annotator, "annotate")
    info = store.project(project)
    study = study_of(info.settings)
    if failed_check(store, project, annotator) is not None:
        return crowd.stop(store, project, annotator)
    counts = own_counts(store, project, annotator)
    if counts.get("submitted", 0) >= required_items(info.settings):
        if study.survey:
            return crowd.set_stage(store, project, annotator, "survey")
        return _complete(store, project, annotator, study)
    if counts.get("skipped", 0) == 0:
        code = study.full_code or crowd_codes.worker_code(store, project, annotator, "full")
        return crowd.set_stage(store, project, annotator, "full", completion_code=code)
    return crowd.set_stage(store, project, annotator, "incomplete", completion_code=None)


def record_survey(
    store: Store, project: str, annotator: str, answers: Mapping[str, Any]
) -> Participant:
    """Store the survey answers and complete the study (only from the survey stage; a
    second Finish after completion changes nothing)."""
    part = crowd.participant(store, project, annotator)
    if part is not None and part.stage == "done":
        return part
    _at_stage(store, project, annotator, "survey")
    study = study_of(store.project(project).settings)
    crowd.set_stage(store, project, annotator, "survey", survey=dict(answers))
    return _complete(store, project, annotator, study)


def _at_stage(store: Store, project: str, annotator: str, stage: str) -> Participant:
    part = crowd.participant(store, project, annotator)
    if part is None or part.stage != stage:
        now = part.stage if part is not None else "not joined"
        raise StoreError(f"{annotator!r} is not at the {stage} stage (now: {now})")
    return part


def _complete(store: Store, project: str, annotator: str, study: StudySettings) -> Participant:
    info = store.project(project)
    submitted = own_counts(store, project, annotator).get("submitted", 0)
    if submitted < required_items(info.settings) or failed_check(store, project, annotator):
        raise StoreError(f"{annotator!r} has not earned the completion code")
    code = study.completion_code or crowd_codes.worker_code(store, project, annotator, "completion")
    return crowd.set_stage(store, project, annotator, "done", completion_code=code)
