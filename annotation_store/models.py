"""The workbench's ORM classes, mapped onto the Core tables of :mod:`annotation_store.tables`.

The columns are defined once, in ``tables``; the annotations here only type the mapped
attributes. The classes are mapped on first use, not at import: a process that only runs
Core statements (``evaluate`` up to its first call) neither imports ``sqlalchemy.orm``
nor builds the mappers. The first ORM use maps every class at once: a store session
(``StoreBase.read`` / ``write``), an attribute the class does not have yet
(``Item.item_id``, or SQLAlchemy asking for ``__clause_element__`` in ``select(Item)``), or
``sqlalchemy.inspect`` of a class (``session.get(Item, 1)``). Schema changes go through
Alembic migrations.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import inspection

from annotation_store import tables
from annotation_store.records import utcnow as utcnow
from annotation_store.tables import NAMING as NAMING

if TYPE_CHECKING:
    from sqlalchemy.orm import Mapped, registry

_lock = threading.RLock()
_registry: registry | None = None
_mapping = False  # True while the classes are being mapped (their own lookups miss)


class _Mappable(type):
    """Metaclass of the model classes: maps them all the first time one is used."""

    def __getattr__(cls, name: str) -> Any:
        if _registry is None:
            map_models()  # another thread mapping: waits for it; this one mapping: returns
            if _registry is not None:
                return getattr(cls, name)
        raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")


@inspection._inspects(_Mappable)
def _inspect_model(cls: type) -> Any:
    map_models()
    return inspection._registrars[type](cls)  # what SQLAlchemy answers for any class


class Base(metaclass=_Mappable):
    """Base of the model classes: keyword construction, as declarative classes have."""

    __table__: Any
    metadata = tables.metadata

    def __init__(self, **kwargs: Any) -> None:
        cls = type(self)
        for key, value in kwargs.items():
            if not hasattr(cls, key):
                raise TypeError(f"{key!r} is an invalid keyword argument for {cls.__name__}")
            setattr(self, key, value)


def map_models() -> None:
    """Map every model class onto its table (once per process; later calls return at once)."""
    global _registry, _mapping
    if _registry is not None:
        return
    with _lock:
        if _registry is not None or _mapping:
            return
        from sqlalchemy.orm import configure_mappers
        from sqlalchemy.orm import registry as make_registry

        _mapping = True
        try:
            reg = make_registry(metadata=tables.metadata)
            for cls in _model_classes():
                reg.map_imperatively(cls, cls.__table__)
            configure_mappers()
        finally:
            _mapping = False
        _registry = reg


def _model_classes() -> list[type[Base]]:
    return [c for c in globals().values() if isinstance(c, type) and c.__bases__ == (Base,)]


class Project(Base):
    """A set of items of one task kind, with settings and a versioned guideline."""

    __table__ = tables.projects
    id: Mapped[int]
    name: Mapped[str]
    kind: Mapped[str]
    settings: Mapped[dict[str, Any]]
    guideline: Mapped[str]
    guideline_version: Mapped[int]
    created_at: Mapped[datetime]


class GuidelineVersion(Base):
    """Every version a project's guideline has had."""

    __table__ = tables.guideline_versions
    id: Mapped[int]
    project_id: Mapped[int]
    version: Mapped[int]
    text: Mapped[str]
    created_at: Mapped[datetime]


class Item(Base):
    """One thing to judge. ``item_id`` is the stable external id, unique per project."""

    __table__ = tables.items
    id: Mapped[int]
    project_id: Mapped[int]
    item_id: Mapped[str]
    position: Mapped[int]
    fields: Mapped[dict[str, Any]]
    split: Mapped[str | None]
    generator: Mapped[str | None]
    created_at: Mapped[datetime]
    queue_full: Mapped[bool]


class FactListVersion(Base):
    """A version of an item's fact list (imported, decomposed by Bi-Fact, or edited)."""

    __table__ = tables.fact_list_versions
    id: Mapped[int]
    item_pk: Mapped[int]
    field: Mapped[str]
    version: Mapped[int]
    facts: Mapped[list[str]]
    source: Mapped[str]
    created_by: Mapped[str | None]
    created_at: Mapped[datetime]


class Annotator(Base):
    """A person who labels; the role decides what they may do."""

    __table__ = tables.annotators
    id: Mapped[int]
    name: Mapped[str]
    role: Mapped[str]
    email: Mapped[str | None]
    password_hash: Mapped[str | None]
    active: Mapped[bool]
    created_at: Mapped[datetime]
    external: Mapped[bool]


class SignInAttempt(Base):
    """One local sign-in attempt (or an admin's unlock), for backoff, lockout and audit."""

    __table__ = tables.sign_in_attempts
    id: Mapped[int]
    at: Mapped[datetime]
    name: Mapped[str]
    client: Mapped[str]
    outcome: Mapped[str]


class AuthSession(Base):
    """A server-side sign-in session; the browser holds only a random token (hashed here)."""

    __table__ = tables.auth_sessions
    id: Mapped[int]
    token_hash: Mapped[str]
    family: Mapped[str]
    annotator_id: Mapped[int]
    created_at: Mapped[datetime]
    last_seen_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    rotated_at: Mapped[datetime | None]


class Assignment(Base):
    """An item handed to an annotator (claimed by the queue or assigned by an admin)."""

    __table__ = tables.assignments
    id: Mapped[int]
    project_id: Mapped[int]
    item_pk: Mapped[int]
    annotator_id: Mapped[int]
    explicit: Mapped[bool]
    status: Mapped[str]
    created_at: Mapped[datetime]


class Annotation(Base):
    """One label: item x annotator x field, upserted in place; history keeps old values."""

    __table__ = tables.annotations
    id: Mapped[int]
    project_id: Mapped[int]
    item_pk: Mapped[int]
    annotator_id: Mapped[int]
    field: Mapped[str]
    value: Mapped[Any]
    status: Mapped[str]
    guideline_version: Mapped[int]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class AnnotationHistory(Base):
    """Append-only record of every change to an annotation."""

    __table__ = tables.annotation_history
    id: Mapped[int]
    project_id: Mapped[int]
    annotation_id: Mapped[int]
    old_value: Mapped[Any]
    new_value: Mapped[Any]
    old_status: Mapped[str | None]
    new_status: Mapped[str]
    source: Mapped[str]
    changed_at: Mapped[datetime]


class ItemProgress(Base):
    """An annotator's state on a whole item: started, submitted or skipped, note, flag."""

    __table__ = tables.item_progress
    id: Mapped[int]
    project_id: Mapped[int]
    item_pk: Mapped[int]
    annotator_id: Mapped[int]
    status: Mapped[str]
    note: Mapped[str]
    flagged: Mapped[bool]
    started_at: Mapped[datetime]
    submitted_at: Mapped[datetime | None]
    seconds_spent: Mapped[float]
    updated_at: Mapped[datetime]
    active_seconds: Mapped[float | None]
    time_source: Mapped[str | None]


class EvaluatorRun(Base):
    """One run of one evaluator over a project's items (or an import of external scores)."""

    __table__ = tables.evaluator_runs
    id: Mapped[int]
    project_id: Mapped[int]
    evaluator: Mapped[str]
    version: Mapped[str]
    model: Mapped[str | None]
    signature: Mapped[dict[str, Any]]
    signature_text: Mapped[str]
    run_index: Mapped[int]
    source: Mapped[str]
    job_id: Mapped[int | None]
    status: Mapped[str]
    tokens_in: Mapped[int]
    tokens_out: Mapped[int]
    cost: Mapped[float]
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]


class EvaluatorResult(Base):
    """An evaluator's output on one item within one run."""

    __table__ = tables.evaluator_results
    id: Mapped[int]
    run_id: Mapped[int]
    item_pk: Mapped[int]
    status: Mapped[str]
    scores: Mapped[dict[str, Any]]
    details: Mapped[dict[str, Any]]
    reasoning: Mapped[str | None]
    raw_reply: Mapped[str | None]
    error: Mapped[str | None]
    tokens_in: Mapped[int]
    tokens_out: Mapped[int]
    cost: Mapped[float]
    latency_s: Mapped[float]
    cached: Mapped[bool]
    created_at: Mapped[datetime]


class LLMCacheEntry(Base):
    """Persistent LLM response cache keyed by a hash of (model, full request)."""

    __table__ = tables.llm_cache
    key: Mapped[str]
    model: Mapped[str]
    request: Mapped[dict[str, Any]]
    response: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class FetchedPage(Base):
    """What the URL Content Retriever fetched for a URL, when, and with what status."""

    __table__ = tables.fetched_pages
    url: Mapped[str]
    record: Mapped[dict[str, Any]]
    fetched_at: Mapped[datetime]


class Job(Base):
    """A background job (evaluator batch run): parameters, status and progress counters."""

    __table__ = tables.jobs
    id: Mapped[int]
    project_id: Mapped[int]
    kind: Mapped[str]
    params: Mapped[dict[str, Any]]
    status: Mapped[str]
    progress: Mapped[dict[str, Any]]
    error: Mapped[str | None]
    created_by: Mapped[str | None]
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]
    claimed_by: Mapped[str | None]
    attempts: Mapped[int]


class Adjudication(Base):
    """A reviewer's final label for an item field, or for one fact (``fact_index`` >= 0)."""

    __table__ = tables.adjudications
    id: Mapped[int]
    project_id: Mapped[int]
    item_pk: Mapped[int]
    field: Mapped[str]
    fact_index: Mapped[int]
    value: Mapped[Any]
    source: Mapped[str]
    cause: Mapped[str | None]
    note: Mapped[str]
    reviewer: Mapped[str | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class StudyParticipant(Base):
    """One worker's way through a project's study flow (consent ... completion)."""

    __table__ = tables.study_participants
    id: Mapped[int]
    project_id: Mapped[int]
    annotator_id: Mapped[int]
    platform: Mapped[str]
    platform_ids: Mapped[dict[str, Any]]
    platform_sessions: Mapped[list[Any]]
    stage: Mapped[str]
    consent: Mapped[bool | None]
    guideline_opened_at: Mapped[datetime | None]
    training: Mapped[list[Any]]
    qualified: Mapped[bool | None]
    survey: Mapped[dict[str, Any] | None]
    completion_code: Mapped[str | None]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]


class DeploymentSecret(Base):
    """A secret of this deployment (e.g. the key of crowd completion codes); never shown."""

    __table__ = tables.deployment_secrets
    name: Mapped[str]
    value: Mapped[str]
    created_at: Mapped[datetime]


class GoldItem(Base):
    """An item with known answers, mixed into the queue as an attention check."""

    __table__ = tables.gold_items
    id: Mapped[int]
    project_id: Mapped[int]
    item_pk: Mapped[int]
    answers: Mapped[dict[str, Any]]
    explanation: Mapped[str]


class AnnotatorExclusion(Base):
    """An annotator left out of a project's agreement figures: why, by what and by whom.

    ``source`` says what excluded them (``admin`` by hand; a crowd-study check such as
    ``gold``, ``qualification`` or ``speed``); one row per project, annotator and source."""

    __table__ = tables.annotator_exclusions
    id: Mapped[int]
    project_id: Mapped[int]
    annotator_id: Mapped[int]
    source: Mapped[str]
    reason: Mapped[str]
    created_by: Mapped[str | None]
    created_at: Mapped[datetime]


class Judge(Base):
    """A custom LLM judge: a name and the task kind it applies to (versions below)."""

    __table__ = tables.judges
    id: Mapped[int]
    name: Mapped[str]
    kind: Mapped[str]
    created_at: Mapped[datetime]


class JudgeVersion(Base):
    """One immutable version of a judge: its definition (template, output, sampling)."""

    __table__ = tables.judge_versions
    id: Mapped[int]
    judge_id: Mapped[int]
    version: Mapped[int]
    definition: Mapped[dict[str, Any]]
    prompt_hash: Mapped[str]
    created_by: Mapped[str | None]
    created_at: Mapped[datetime]


class SelectionDraw(Base):
    """One item's draw in an active-selection sample (Zrnic and Candès 2024).

    Every judged item of the project gets a row: the probability it was drawn with and
    whether it was drawn. The ``active`` assignment strategy hands out drawn items only;
    the estimates weight their labels by the inverse probability, so they stay unbiased."""

    __table__ = tables.selection_draws
    id: Mapped[int]
    project_id: Mapped[int]
    item_pk: Mapped[int]
    probability: Mapped[float]
    selected: Mapped[bool]
    basis: Mapped[str]
    created_at: Mapped[datetime]


class DeclaredKind(Base):
    """A task kind declared in a file or in the app (versions below)."""

    __table__ = tables.declared_kinds
    id: Mapped[int]
    name: Mapped[str]
    created_at: Mapped[datetime]


class DeclaredKindVersion(Base):
    """One immutable version of a declared kind: its checked definition and the TOML
    text it came from (exported back unchanged)."""

    __table__ = tables.declared_kind_versions
    id: Mapped[int]
    kind_id: Mapped[int]
    version: Mapped[int]
    definition: Mapped[dict[str, Any]]
    source: Mapped[str]
    created_by: Mapped[str | None]
    created_at: Mapped[datetime]


class DriftAnchor(Base):
    """One anchor item of a judge's drift check: chosen once (seeded, stratified by the
    people's majority when there is one) and re-judged by every check."""

    __table__ = tables.drift_anchors
    id: Mapped[int]
    project_id: Mapped[int]
    evaluator: Mapped[str]
    item_pk: Mapped[int]
    stratum: Mapped[str | None]
    seed: Mapped[int]
    created_at: Mapped[datetime]


class DriftCheck(Base):
    """One drift check of a judge version and model on its anchors: the figures, the bar
    and whether it passed."""

    __table__ = tables.drift_checks
    id: Mapped[int]
    project_id: Mapped[int]
    evaluator: Mapped[str]
    version: Mapped[str]
    model: Mapped[str | None]
    signature_text: Mapped[str]
    field: Mapped[str]
    n_anchors: Mapped[int]
    figures: Mapped[dict[str, Any]]
    bar: Mapped[str]
    passed: Mapped[bool]
    created_at: Mapped[datetime]
