"""SQLAlchemy 2 models of the workbench. Schema changes go through Alembic migrations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from annotation_store.records import utcnow

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with constraint naming, so migrations are stable on every backend."""

    metadata = MetaData(naming_convention=NAMING)


class Project(Base):
    """A set of items of one task kind, with settings and a versioned guideline."""

    __tablename__ = "projects"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(64))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    guideline: Mapped[str] = mapped_column(Text, default="")
    guideline_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class GuidelineVersion(Base):
    """Every version a project's guideline has had."""

    __tablename__ = "guideline_versions"
    __table_args__ = (UniqueConstraint("project_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Item(Base):
    """One thing to judge. ``item_id`` is the stable external id, unique per project."""

    __tablename__ = "items"
    __table_args__ = (UniqueConstraint("project_id", "item_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_id: Mapped[str] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer, default=0)
    fields: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    split: Mapped[str | None] = mapped_column(String(16), nullable=True)
    generator: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class FactListVersion(Base):
    """A version of an item's fact list (imported, decomposed by Bi-Fact, or edited)."""

    __tablename__ = "fact_list_versions"
    __table_args__ = (UniqueConstraint("item_pk", "field", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    field: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer)
    facts: Mapped[list[str]] = mapped_column(JSON)
    source: Mapped[str] = mapped_column(String(32))  # import / bifact / edit
    created_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Annotator(Base):
    """A person who labels; the role decides what they may do."""

    __tablename__ = "annotators"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    role: Mapped[str] = mapped_column(String(16), default="annotator")
    email: Mapped[str | None] = mapped_column(String(320), unique=True, nullable=True)
    password_hash: Mapped[str | None] = mapped_column(String(512), nullable=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # An external rater came in with imported labels: no login until an admin adds the user.
    external: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SignInAttempt(Base):
    """One local sign-in attempt (or an admin's unlock), for backoff, lockout and audit."""

    __tablename__ = "sign_in_attempts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    client: Mapped[str] = mapped_column(String(100), index=True)
    outcome: Mapped[str] = mapped_column(String(16))  # ok / wrong / refused / unlocked


class AuthSession(Base):
    """A server-side sign-in session; the browser holds only a random token (hashed here)."""

    __tablename__ = "auth_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # Every token rotated from one sign-in shares the family; sign-out revokes them all.
    family: Mapped[str] = mapped_column(String(64), index=True)
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    rotated_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Assignment(Base):
    """An item handed to an annotator (claimed by the queue or assigned by an admin)."""

    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("item_pk", "annotator_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    explicit: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open / done / released
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Annotation(Base):
    """One label: item x annotator x field, upserted in place; history keeps old values."""

    __tablename__ = "annotations"
    __table_args__ = (UniqueConstraint("item_pk", "annotator_id", "field"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    field: Mapped[str] = mapped_column(String(64))
    value: Mapped[Any] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="draft")  # draft/submitted/skipped
    guideline_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)


class AnnotationHistory(Base):
    """Append-only record of every change to an annotation."""

    __tablename__ = "annotation_history"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    annotation_id: Mapped[int] = mapped_column(
        ForeignKey("annotations.id", ondelete="CASCADE"), index=True
    )
    old_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    new_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    old_status: Mapped[str | None] = mapped_column(String(16), nullable=True)
    new_status: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(32), default="app")  # app / import / cli
    changed_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ItemProgress(Base):
    """An annotator's state on a whole item: started, submitted or skipped, note, flag."""

    __tablename__ = "item_progress"
    __table_args__ = (UniqueConstraint("item_pk", "annotator_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    status: Mapped[str] = mapped_column(String(16), default="draft")  # draft/submitted/skipped
    note: Mapped[str] = mapped_column(Text, default="")
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    started_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    seconds_spent: Mapped[float] = mapped_column(Float, default=0.0)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # Time the page was in view and in use (measured in the browser); None: not measured.
    active_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)


class EvaluatorRun(Base):
    """One run of one evaluator over a project's items (or an import of external scores)."""

    __tablename__ = "evaluator_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    evaluator: Mapped[str] = mapped_column(String(100))
    version: Mapped[str] = mapped_column(String(32))
    model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    signature: Mapped[dict[str, Any]] = mapped_column(JSON)
    signature_text: Mapped[str] = mapped_column(String(500), index=True)
    run_index: Mapped[int] = mapped_column(Integer, default=0)
    source: Mapped[str] = mapped_column(String(16), default="run")  # run / import
    job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id"), nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="running")
    tokens_in: Mapped[int] = mapped_column(Integer, default=0)
    tokens_out: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # Stamped every few seconds while the run's process works (jobs/run_heartbeat.py).
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class EvaluatorResult(Base):
    """An evaluator's output on one item within one run."""

    __tablename__ = "evaluator_results"
    __table_args__ = (UniqueConstraint("run_id", "item_pk"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(
        ForeignKey("evaluator_runs.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16))  # ok / failed
    scores: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    reasoning: Mapped[str | None] = mapped_column(Text, nullable=True)
    raw_reply: Mapped[str | None] = mapped_column(Text, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    tokens_in: Mapped[int] = mapped_column(Integer, default=0)
    tokens_out: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    latency_s: Mapped[float] = mapped_column(Float, default=0.0)
    cached: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class LLMCacheEntry(Base):
    """Persistent LLM response cache keyed by a hash of (model, full request)."""

    __tablename__ = "llm_cache"
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class FetchedPage(Base):
    """What the URL Content Retriever fetched for a URL, when, and with what status."""

    __tablename__ = "fetched_pages"
    url: Mapped[str] = mapped_column(String(2048), primary_key=True)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    fetched_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Job(Base):
    """A background job (evaluator batch run): parameters, status and progress counters."""

    __tablename__ = "jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(32), default="evaluate")
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # queued / running / cancelling / cancelled / done / failed
    status: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    progress: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # The worker holding the job's lease, and how many times the job was claimed.
    claimed_by: Mapped[str | None] = mapped_column(String(120), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Adjudication(Base):
    """A reviewer's final label for an item field, or for one fact (``fact_index`` >= 0)."""

    __tablename__ = "adjudications"
    __table_args__ = (UniqueConstraint("item_pk", "field", "fact_index"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    field: Mapped[str] = mapped_column(String(64))
    fact_index: Mapped[int] = mapped_column(Integer, default=-1)  # -1: the whole field
    value: Mapped[Any] = mapped_column(JSON)
    source: Mapped[str] = mapped_column(String(16))  # unanimous / majority / adjudicated
    cause: Mapped[str | None] = mapped_column(String(32), nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    reviewer: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class StudyParticipant(Base):
    """One worker's way through a project's study flow (consent ... completion)."""

    __tablename__ = "study_participants"
    __table_args__ = (UniqueConstraint("project_id", "annotator_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    platform: Mapped[str] = mapped_column(String(16), default="account")  # prolific/mturk/account
    platform_ids: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # the latest
    # every distinct set of platform ids the worker came with (assignments, sessions)
    platform_sessions: Mapped[list[Any]] = mapped_column(
        JSON, default=list, server_default=text("'[]'")
    )
    # consent / guideline / training / annotate / survey / done, or declined /
    # not_qualified / stopped
    stage: Mapped[str] = mapped_column(String(16), default="consent")
    consent: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    guideline_opened_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    training: Mapped[list[Any]] = mapped_column(JSON, default=list)  # one dict per answer
    qualified: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    survey: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    completion_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class DeploymentSecret(Base):
    """A secret of this deployment (e.g. the key of crowd completion codes); never shown."""

    __tablename__ = "deployment_secrets"
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class GoldItem(Base):
    """An item with known answers, mixed into the queue as an attention check."""

    __tablename__ = "gold_items"
    __table_args__ = (UniqueConstraint("item_pk"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    answers: Mapped[dict[str, Any]] = mapped_column(JSON)  # field -> gold value
    explanation: Mapped[str] = mapped_column(Text, default="")


Index("ix_annotations_project_status", Annotation.project_id, Annotation.status)
# Paged item views read one page in import order (LIMIT / OFFSET over this index).
Index("ix_items_project_position", Item.project_id, Item.position)


class AnnotatorExclusion(Base):
    """An annotator left out of a project's agreement figures: why, by what and by whom.

    ``source`` says what excluded them (``admin`` by hand; a crowd-study check such as
    ``gold``, ``qualification`` or ``speed``); one row per project, annotator and source.
    """

    __tablename__ = "annotator_exclusions"
    __table_args__ = (UniqueConstraint("project_id", "annotator_id", "source"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    source: Mapped[str] = mapped_column(String(32), default="admin")
    reason: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Judge(Base):
    """A custom LLM judge: a name and the task kind it applies to (versions below)."""

    __tablename__ = "judges"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    kind: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class JudgeVersion(Base):
    """One immutable version of a judge: its definition (template, output, sampling)."""

    __tablename__ = "judge_versions"
    __table_args__ = (UniqueConstraint("judge_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    judge_id: Mapped[int] = mapped_column(ForeignKey("judges.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    definition: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    prompt_hash: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class SelectionDraw(Base):
    """One item's draw in an active-selection sample (Zrnic and Candès 2024).

    Every judged item of the project gets a row: the probability it was drawn with and
    whether it was drawn. The ``active`` assignment strategy hands out drawn items only;
    the estimates weight their labels by the inverse probability, so they stay unbiased.
    """

    __tablename__ = "selection_draws"
    __table_args__ = (UniqueConstraint("item_pk"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    item_pk: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    probability: Mapped[float] = mapped_column(Float)
    selected: Mapped[bool] = mapped_column(Boolean)
    basis: Mapped[str] = mapped_column(String(500))  # judge signature(s) and the rule used
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class DeclaredKind(Base):
    """A task kind declared in a file or in the app (versions below)."""

    __tablename__ = "declared_kinds"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(48), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class DeclaredKindVersion(Base):
    """One immutable version of a declared kind: its checked definition and the TOML
    text it came from (exported back unchanged)."""

    __tablename__ = "declared_kind_versions"
    __table_args__ = (UniqueConstraint("kind_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind_id: Mapped[int] = mapped_column(
        ForeignKey("declared_kinds.id", ondelete="CASCADE"), index=True
    )
    version: Mapped[int] = mapped_column(Integer)
    definition: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    source: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
