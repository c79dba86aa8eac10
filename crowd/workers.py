"""Crowd workers: entry by a study link, and each worker's way through the study flow.

A study link names the project and carries its secret token plus the platform's ids
(Prolific ``PROLIFIC_PID`` / ``STUDY_ID`` / ``SESSION_ID``, MTurk ``workerId`` /
``assignmentId`` / ``hitId``). The first visit creates the annotator (role annotator,
no password) and a participant row; a later visit with the same id resumes it. A link
only ever enters an account that one of the same study's links made. Worker ids are
ASCII and case-exact, as the platforms treat them. How annotation ends (completion
code, study full) is :mod:`crowd.ending`.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation_store.models import Annotator, Project, StudyParticipant, utcnow
from annotation_store.records import AnnotatorInfo
from annotation_store.store import Store
from annotation_store.store_projects import StoreError, annotator_info
from studies.flow_settings import StudySettings, answers_match, study_of

# platform -> (worker id parameter, the other ids kept)
LINK_PARAMS = {
    "prolific": ("PROLIFIC_PID", ("STUDY_ID", "SESSION_ID")),
    "mturk": ("workerId", ("assignmentId", "hitId")),
}
STOPPED = ("declined", "not_qualified", "stopped", "full", "incomplete")
#: Stopped by the study's checks (not by their own choice): they get a screen-out code.
SCREENED = ("not_qualified", "stopped")
STAGES = ("consent", "guideline", "training", "annotate", "survey", "done", *STOPPED)
MAX_ID = 120
#: Platform worker ids: ASCII letters, digits and ``-_.`` (no look-alike Unicode).
WORKER_ID = re.compile(r"[A-Za-z0-9._-]+")
#: The assignment id MTurk sends while a worker only previews the HIT.
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
#: Where MTurk takes an external question's answers (production, sandbox): chosen by the
#: study's ``mturk_sandbox`` setting; a link's ``turkSubmitTo`` is kept but never used.
MTURK_SUBMIT_HOSTS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
#: Session keys that are not platform ids: when it was seen, and that it was paid.
_SESSION_MARKS = ("at", "paid")


class CrowdRefused(StoreError):
    """A study link that does not let anyone in; the message says why."""


class CrowdPreview(CrowdRefused):
    """MTurk shows the HIT before a worker accepts it: nobody to let in yet."""


@dataclass(frozen=True)
class CrowdLink:
    """What a study link says: project, token, platform and the worker's ids."""

    project: str
    token: str
    platform: str
    worker_id: str
    ids: dict[str, str]

    @property
    def annotator(self) -> str:
        """The annotator name the worker gets (one per platform id)."""
        return f"{self.platform}:{self.worker_id}"


@dataclass(frozen=True)
class Participant:
    """A worker's standing in a study."""

    annotator: str
    platform: str
    platform_ids: dict[str, Any]
    stage: str
    consent: bool | None
    guideline_opened: bool
    training: list[dict[str, Any]]
    qualified: bool | None
    survey: dict[str, Any] | None
    completion_code: str | None
    started_at: datetime
    finished_at: datetime | None
    platform_sessions: tuple[dict[str, Any], ...] = ()


def parse_link(params: Mapping[str, Any]) -> CrowdLink | None:
    """Read a study link's query parameters; None when it is no study link at all."""
    project = str(params.get("study") or "").strip()
    if not project:
        return None
    if str(params.get("assignmentId") or "") == MTURK_PREVIEW:
        raise CrowdPreview("This is a preview of the HIT: accept the HIT to start the study.")
    for platform, (id_key, others) in LINK_PARAMS.items():
        worker = str(params.get(id_key) or "").strip()
        if worker:
            if len(worker) > MAX_ID or not WORKER_ID.fullmatch(worker):
                raise CrowdRefused("This study link carries a malformed worker id.")
            ids = {id_key: worker, **{k: str(params.get(k) or "") for k in others}}
            if platform == "mturk" and params.get("turkSubmitTo"):
                ids["turkSubmitTo"] = str(params["turkSubmitTo"])
            return CrowdLink(project, str(params.get("token") or ""), platform, worker, ids)
    raise CrowdRefused("This study link carries no worker id (PROLIFIC_PID or workerId).")


def _participant(row: StudyParticipant, name: str) -> Participant:
    return Participant(
        name,
        row.platform,
        dict(row.platform_ids or {}),
        row.stage,
        row.consent,
        row.guideline_opened_at is not None,
        list(row.training or []),
        row.qualified,
        dict(row.survey) if row.survey is not None else None,
        row.completion_code,
        row.started_at,
        row.finished_at,
        tuple(dict(x) for x in row.platform_sessions or []),
    )


def _first_stage(study: StudySettings) -> str:
    return "consent" if study.consent else "guideline"


def enter(store: Store, link: CrowdLink, crowd_mode: bool = False) -> AnnotatorInfo:
    """Let a worker in by a study link (first visit: create them), or refuse.

    Refused: unknown project, crowd entry off for it (and ``crowd_mode`` off), a missing
    or wrong token, or a worker id whose account this study's links did not make (a
    signed-in user, an imported rater, a worker of another study). Every visit records
    the link's platform ids: the latest are the ones the end page uses.
    """
    with store.write() as s:
        proj = s.scalar(select(Project).where(Project.name == link.project).with_for_update())
        study = study_of(proj.settings or {}) if proj is not None else StudySettings()
        if proj is None or not (study.crowd or crowd_mode) or not study.token:
            raise CrowdRefused("This study is not open to study links.")
        if not hmac.compare_digest(link.token.encode(), study.token.encode()):
            raise CrowdRefused("This study link is not valid (its token does not match).")
        who = s.scalar(select(Annotator).where(Annotator.name == link.annotator))
        if who is None:
            who = Annotator(name=link.annotator, role="annotator", external=False)
            s.add(who)
            s.flush()
            row = None
        else:
            row = _row(s, proj.id, who.id)
            made_here = row is not None and row.platform == link.platform
            taken = who.external or who.role != "annotator" or who.password_hash
            if not made_here or taken or not who.active:
                raise CrowdRefused("This worker id cannot be used for a study link.")
        if row is None:
            row = StudyParticipant(
                project_id=proj.id,
                annotator_id=who.id,
                platform=link.platform,
                platform_ids={},
                platform_sessions=[],
                stage=_first_stage(study),
                training=[],
            )
            s.add(row)
        _record_ids(row, link.ids)
        return annotator_info(who)


def _record_ids(row: StudyParticipant, ids: Mapping[str, str]) -> None:
    """The link's ids become the current ones; a set not seen before joins the history."""
    current = dict(ids)
    seen = list(row.platform_sessions or [])
    if all(_ids_of(x) != current for x in seen):
        seen.append({**current, "at": utcnow().isoformat(timespec="seconds")})
        row.platform_sessions = seen
    row.platform_ids = current


def _ids_of(session: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in session.items() if k not in _SESSION_MARKS}


def _mark_paid(row: StudyParticipant) -> None:
    """The platform session the worker completed the study in is the one paid."""
    current = dict(row.platform_ids or {})
    row.platform_sessions = [
        {**x, "paid": True} if _ids_of(x) == current else x for x in row.platform_sessions or []
    ]


def paid_elsewhere(part: Participant) -> bool:
    """True when the worker completed the study in another platform session (an earlier
    MTurk assignment) than the one they came with now: this one must not be paid."""
    paid = [_ids_of(x) for x in part.platform_sessions if x.get("paid")]
    return part.stage == "done" and bool(paid) and dict(part.platform_ids) not in paid


def _row(s: Session, project_id: int, annotator_id: int) -> StudyParticipant | None:
    return s.scalar(
        select(StudyParticipant).where(
            StudyParticipant.project_id == project_id,
            StudyParticipant.annotator_id == annotator_id,
        )
    )


def _locate(s: Session, project: str, annotator: str) -> tuple[Project, Annotator]:
    proj = s.scalar(select(Project).where(Project.name == project))
    who = s.scalar(select(Annotator).where(Annotator.name == annotator))
    if proj is None or who is None:
        raise StoreError(f"no project {project!r} or annotator {annotator!r}")
    return proj, who


def participant(store: Store, project: str, annotator: str) -> Participant | None:
    """The worker's standing in the project's study (None: not a participant yet)."""
    with store.read() as s:
        proj, who = _locate(s, project, annotator)
        row = _row(s, proj.id, who.id)
        return _participant(row, annotator) if row is not None else None


def join(store: Store, project: str, annotator: str) -> Participant:
    """Make a signed-in annotator a participant of a study flow (idempotent)."""
    with store.write() as s:
        proj, who = _locate(s, project, annotator)
        s.scalar(select(Project).where(Project.id == proj.id).with_for_update())
        row = _row(s, proj.id, who.id)
        if row is None:
            row = StudyParticipant(
                project_id=proj.id,
                annotator_id=who.id,
                platform="account",
                platform_ids={},
                stage=_first_stage(study_of(proj.settings or {})),
                training=[],
            )
            s.add(row)
            s.flush()
        return _participant(row, annotator)


def participants(store: Store, project: str) -> list[Participant]:
    """Every participant of a project's study, by annotator name."""
    with store.read() as s:
        proj = s.scalar(select(Project).where(Project.name == project))
        if proj is None:
            raise StoreError(f"no project called {project!r}")
        rows = s.execute(
            select(StudyParticipant, Annotator.name)
            .join(Annotator, Annotator.id == StudyParticipant.annotator_id)
            .where(StudyParticipant.project_id == proj.id)
            .order_by(Annotator.name)
        ).all()
        return [_participant(r, n) for r, n in rows]


def _update(store: Store, project: str, annotator: str, **changes: Any) -> Participant:
    with store.write() as s:
        proj, who = _locate(s, project, annotator)
        row = _row(s, proj.id, who.id)
        if row is None:
            raise StoreError(f"{annotator!r} has not joined the study of {project!r}")
        for key, value in changes.items():
            setattr(row, key, value(row) if callable(value) else value)
        if row.stage in (*STOPPED, "done") and row.finished_at is None:
            row.finished_at = utcnow()
            if row.stage == "done":
                _mark_paid(row)
        return _participant(row, annotator)


def set_stage(
    store: Store, project: str, annotator: str, stage: str, **changes: Any
) -> Participant:
    """Move the worker to ``stage`` (with other column changes); callers decide when."""
    if stage not in STAGES:
        raise StoreError(f"no study stage {stage!r}")
    return _update(store, project, annotator, stage=stage, **changes)


def record_consent(store: Store, project: str, annotator: str, agreed: bool) -> Participant:
    """Store the answer to the consent page; declining ends the study for this worker."""
    return _update(
        store, project, annotator, consent=agreed, stage="guideline" if agreed else "declined"
    )


def record_guideline_opened(store: Store, project: str, annotator: str) -> Participant:
    """The worker opened the guideline: training (or annotation) may start."""
    study = study_of(store.project(project).settings)
    return _update(
        store,
        project,
        annotator,
        guideline_opened_at=lambda row: row.guideline_opened_at or utcnow(),
        stage="training" if study.training else "annotate",
    )


def record_training_answer(
    store: Store, project: str, annotator: str, training_id: str, answers: Mapping[str, Any]
) -> bool:
    """Store one training answer (the first answer per item counts); returns correct."""
    study = study_of(store.project(project).settings)
    item = next((t for t in study.training if t.id == training_id), None)
    if item is None:
        raise StoreError(f"no training item {training_id!r}")
    correct = answers_match(answers, item.answers)

    def add(row: StudyParticipant) -> list[dict[str, Any]]:
        done = list(row.training or [])
        if all(a["id"] != training_id for a in done):
            done.append({"id": training_id, "answers": dict(answers), "correct": correct})
        return done

    _update(store, project, annotator, training=add)
    return correct


def training_score(study: StudySettings, answers: list[dict[str, Any]]) -> float:
    """Share of the study's training items answered correctly."""
    if not study.training:
        return 1.0
    right = {a["id"] for a in answers if a.get("correct")}
    return sum(1 for t in study.training if t.id in right) / len(study.training)


def finish_training(store: Store, project: str, annotator: str) -> Participant:
    """Judge the training against the qualification threshold: annotate, or stop."""
    study = study_of(store.project(project).settings)
    now = participant(store, project, annotator)
    assert now is not None
    passed = training_score(study, now.training) >= study.qualification
    return _update(
        store,
        project,
        annotator,
        qualified=passed,
        stage="annotate" if passed else "not_qualified",
        completion_code=None if passed else screenout_code(study, now.platform),
    )


def stop(store: Store, project: str, annotator: str) -> Participant:
    """Stop a worker (gold accuracy below the threshold with ``gold_stop``)."""
    study = study_of(store.project(project).settings)
    now = participant(store, project, annotator)
    platform = now.platform if now is not None else ""
    return _update(
        store,
        project,
        annotator,
        stage="stopped",
        completion_code=screenout_code(study, platform),
    )


def screenout_code(study: StudySettings, platform: str) -> str | None:
    """The code a screened-out worker gets: the study's screen-out code on Prolific (MTurk
    has none: its workers return the HIT)."""
    if platform != "prolific" or not study.screenout_code:
        return None
    return study.screenout_code


def completion_url(study: StudySettings, code: str) -> str:
    """Where a Prolific worker goes at the end (the study's URL, with the code)."""
    if not study.completion_url:
        return ""
    if "cc=" in study.completion_url:
        return study.completion_url
    sep = "&" if "?" in study.completion_url else "?"
    return f"{study.completion_url}{sep}cc={code}"


def mturk_submit_url(study: StudySettings) -> str:
    """Where an MTurk worker's browser posts the finished assignment: production, or the
    sandbox when the study's settings say so (never what a link says)."""
    return f"{MTURK_SUBMIT_HOSTS[1 if study.mturk_sandbox else 0]}/mturk/externalSubmit"


def screenout_url(study: StudySettings) -> str:
    """Where a screened-out Prolific worker goes: the study's URL with the screen-out code
    (in place of any code the URL carries)."""
    if not study.completion_url or not study.screenout_code:
        return ""
    parts = urlsplit(study.completion_url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "cc"]
    query.append(("cc", study.screenout_code))
    return urlunsplit(parts._replace(query=urlencode(query)))


def study_link(base_url: str, project: str, token: str, platform: str = "prolific") -> str:
    """The link to give the platform, with its placeholders for the worker's ids."""
    from urllib.parse import quote

    id_key, others = LINK_PARAMS[platform]
    keys = (id_key, *others)
    if platform == "prolific":
        ids = "&".join(f"{k}={{{{%{k}%}}}}" for k in keys)  # Prolific fills {{%KEY%}}
    else:
        ids = "&".join(f"{k}=" for k in keys)  # MTurk's external question appends them
    base = base_url.rstrip("/") + "/"
    return f"{base}?study={quote(project)}&token={quote(token)}&{ids}"
