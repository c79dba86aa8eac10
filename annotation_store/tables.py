"""The workbench's tables as SQLAlchemy Core ``Table`` objects: the schema in one place.

Core statements on these tables need no ORM, so a command that only reads and writes rows
(``evaluate`` before its first call) does not import ``sqlalchemy.orm`` or build the
mappers; ``annotation_store.models`` maps its classes onto the same tables. Schema changes
go through Alembic migrations.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
)

from annotation_store.records import utcnow

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: Constraint naming, so migrations are stable on every backend.
metadata = MetaData(naming_convention=NAMING)


projects = Table(
    "projects",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), unique=True, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("settings", JSON, default=dict, nullable=False),
    Column("guideline", Text, default="", nullable=False),
    Column("guideline_version", Integer, default=1, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


guideline_versions = Table(
    "guideline_versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("project_id", "version"),
)


items = Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_id", String(200), nullable=False),
    Column("position", Integer, default=0, nullable=False),
    Column("fields", JSON, default=dict, nullable=False),
    Column("split", String(16), nullable=True),
    Column("generator", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    # A hint for the claim queue: True once the item holds k annotators (or is gold), so
    # the next claim skips it by index; cleared when a slot frees (studies.assignments).
    Column("queue_full", Boolean, default=False, server_default=false(), nullable=False),
    UniqueConstraint("project_id", "item_id"),
)


fact_list_versions = Table(
    "fact_list_versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("field", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("facts", JSON, nullable=False),
    Column("source", String(32), nullable=False),  # import / bifact / edit
    Column("created_by", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("item_pk", "field", "version"),
)


annotators = Table(
    "annotators",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), unique=True, nullable=False),
    Column("role", String(16), default="annotator", nullable=False),
    Column("email", String(320), unique=True, nullable=True),
    Column("password_hash", String(512), nullable=True),
    Column("active", Boolean, default=True, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    # An external rater came in with imported labels: no login until an admin adds the user.
    Column("external", Boolean, default=False, server_default=false(), nullable=False),
)


sign_in_attempts = Table(
    "sign_in_attempts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime, default=utcnow, index=True, nullable=False),
    Column("name", String(200), index=True, nullable=False),
    Column("client", String(100), index=True, nullable=False),
    Column("outcome", String(16), nullable=False),  # ok / wrong / refused / unlocked
)


auth_sessions = Table(
    "auth_sessions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token_hash", String(64), unique=True, nullable=False),
    # Every token rotated from one sign-in shares the family; sign-out revokes them all.
    Column("family", String(64), index=True, nullable=False),
    Column(
        "annotator_id", ForeignKey("annotators.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("last_seen_at", DateTime, default=utcnow, nullable=False),
    Column("expires_at", DateTime, nullable=False),
    Column("revoked_at", DateTime, nullable=True),
    Column("rotated_at", DateTime, nullable=True),
)


assignments = Table(
    "assignments",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), index=True, nullable=False),
    Column(
        "annotator_id", ForeignKey("annotators.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("explicit", Boolean, default=False, nullable=False),
    Column("status", String(16), default="open", nullable=False),  # open / done / released
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("item_pk", "annotator_id"),
)


annotations = Table(
    "annotations",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), index=True, nullable=False),
    Column(
        "annotator_id", ForeignKey("annotators.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("field", String(64), nullable=False),
    Column("value", JSON, nullable=False),
    Column("status", String(16), default="draft", nullable=False),  # draft/submitted/skipped
    Column("guideline_version", Integer, default=1, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("updated_at", DateTime, default=utcnow, index=True, nullable=False),
    UniqueConstraint("item_pk", "annotator_id", "field"),
)


annotation_history = Table(
    "annotation_history",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column(
        "annotation_id",
        ForeignKey("annotations.id", ondelete="CASCADE"),
        index=True,
        nullable=False,
    ),
    Column("old_value", JSON, nullable=True),
    Column("new_value", JSON, nullable=True),
    Column("old_status", String(16), nullable=True),
    Column("new_status", String(16), nullable=False),
    Column("source", String(32), default="app", nullable=False),  # app / import / cli
    Column("changed_at", DateTime, default=utcnow, nullable=False),
)


item_progress = Table(
    "item_progress",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), index=True, nullable=False),
    Column(
        "annotator_id", ForeignKey("annotators.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("status", String(16), default="draft", nullable=False),  # draft/submitted/skipped
    Column("note", Text, default="", nullable=False),
    Column("flagged", Boolean, default=False, nullable=False),
    Column("started_at", DateTime, default=utcnow, nullable=False),
    Column("submitted_at", DateTime, nullable=True),
    Column("seconds_spent", Float, default=0.0, nullable=False),
    Column("updated_at", DateTime, default=utcnow, nullable=False),
    # Time the page was in view and in use (measured in the browser); None: not measured.
    Column("active_seconds", Float, nullable=True),
    # Where ``seconds_spent`` came from when a platform reported it (an import: "MTurk
    # WorkTimeInSeconds", "Label Studio lead_time"...); None: timed by the app itself.
    Column("time_source", String(64), nullable=True),
    UniqueConstraint("item_pk", "annotator_id"),
)


evaluator_runs = Table(
    "evaluator_runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("evaluator", String(100), nullable=False),
    Column("version", String(32), nullable=False),
    Column("model", String(200), nullable=True),
    Column("signature", JSON, nullable=False),
    Column("signature_text", String(500), index=True, nullable=False),
    Column("run_index", Integer, default=0, nullable=False),
    Column("source", String(16), default="run", nullable=False),  # run / import
    Column("job_id", ForeignKey("jobs.id"), nullable=True),
    Column("status", String(16), default="running", nullable=False),
    Column("tokens_in", Integer, default=0, nullable=False),
    Column("tokens_out", Integer, default=0, nullable=False),
    Column("cost", Float, default=0.0, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("finished_at", DateTime, nullable=True),
    # Stamped every few seconds while the run's process works (jobs/run_heartbeat.py).
    Column("heartbeat_at", DateTime, nullable=True),
)


evaluator_results = Table(
    "evaluator_results",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "run_id", ForeignKey("evaluator_runs.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("status", String(16), nullable=False),  # ok / failed
    Column("scores", JSON, default=dict, nullable=False),
    Column("details", JSON, default=dict, nullable=False),
    Column("reasoning", Text, nullable=True),
    Column("raw_reply", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("tokens_in", Integer, default=0, nullable=False),
    Column("tokens_out", Integer, default=0, nullable=False),
    Column("cost", Float, default=0.0, nullable=False),
    Column("latency_s", Float, default=0.0, nullable=False),
    Column("cached", Boolean, default=False, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("run_id", "item_pk"),
)


llm_cache = Table(
    "llm_cache",
    metadata,
    Column("key", String(128), primary_key=True),
    Column("model", String(200), nullable=False),
    Column("request", JSON, nullable=False),
    Column("response", JSON, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


fetched_pages = Table(
    "fetched_pages",
    metadata,
    Column("url", String(2048), primary_key=True),
    Column("record", JSON, nullable=False),
    Column("fetched_at", DateTime, default=utcnow, nullable=False),
)


jobs = Table(
    "jobs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("kind", String(32), default="evaluate", nullable=False),
    Column("params", JSON, default=dict, nullable=False),
    # queued / running / cancelling / cancelled / done / failed
    Column("status", String(16), default="queued", index=True, nullable=False),
    Column("progress", JSON, default=dict, nullable=False),
    Column("error", Text, nullable=True),
    Column("created_by", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("started_at", DateTime, nullable=True),
    Column("finished_at", DateTime, nullable=True),
    Column("heartbeat_at", DateTime, nullable=True),
    # The worker holding the job's lease, and how many times the job was claimed.
    Column("claimed_by", String(120), nullable=True),
    Column("attempts", Integer, default=0, server_default="0", nullable=False),
)


adjudications = Table(
    "adjudications",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("field", String(64), nullable=False),
    Column("fact_index", Integer, default=-1, nullable=False),  # -1: the whole field
    Column("value", JSON, nullable=False),
    Column("source", String(16), nullable=False),  # unanimous / majority / adjudicated
    Column("cause", String(32), nullable=True),
    Column("note", Text, default="", nullable=False),
    Column("reviewer", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("updated_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("item_pk", "field", "fact_index"),
)


study_participants = Table(
    "study_participants",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column(
        "annotator_id", ForeignKey("annotators.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("platform", String(16), default="account", nullable=False),  # prolific/mturk/account
    Column("platform_ids", JSON, default=dict, nullable=False),  # the latest
    # every distinct set of platform ids the worker came with (assignments, sessions)
    Column("platform_sessions", JSON, default=list, server_default=text("'[]'"), nullable=False),
    # consent / guideline / training / annotate / survey / done, or declined /
    # not_qualified / stopped
    Column("stage", String(16), default="consent", nullable=False),
    Column("consent", Boolean, nullable=True),
    Column("guideline_opened_at", DateTime, nullable=True),
    Column("training", JSON, default=list, nullable=False),  # one dict per answer
    Column("qualified", Boolean, nullable=True),
    Column("survey", JSON, nullable=True),
    Column("completion_code", String(64), nullable=True),
    Column("started_at", DateTime, default=utcnow, nullable=False),
    Column("finished_at", DateTime, nullable=True),
    UniqueConstraint("project_id", "annotator_id"),
)


deployment_secrets = Table(
    "deployment_secrets",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", String(128), nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


gold_items = Table(
    "gold_items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), nullable=False),
    Column("answers", JSON, nullable=False),  # field -> gold value
    Column("explanation", Text, default="", nullable=False),
    UniqueConstraint("item_pk"),
)


annotator_exclusions = Table(
    "annotator_exclusions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column(
        "annotator_id", ForeignKey("annotators.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("source", String(32), default="admin", nullable=False),
    Column("reason", Text, nullable=False),
    Column("created_by", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("project_id", "annotator_id", "source"),
)


judges = Table(
    "judges",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(100), unique=True, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


judge_versions = Table(
    "judge_versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("judge_id", ForeignKey("judges.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("version", Integer, nullable=False),
    Column("definition", JSON, default=dict, nullable=False),
    Column("prompt_hash", String(64), nullable=False),
    Column("created_by", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("judge_id", "version"),
)


selection_draws = Table(
    "selection_draws",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), nullable=False),
    Column("probability", Float, nullable=False),
    Column("selected", Boolean, nullable=False),
    Column("basis", String(500), nullable=False),  # judge signature(s) and the rule used
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("item_pk"),
)


declared_kinds = Table(
    "declared_kinds",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(48), unique=True, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


declared_kind_versions = Table(
    "declared_kind_versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "kind_id", ForeignKey("declared_kinds.id", ondelete="CASCADE"), index=True, nullable=False
    ),
    Column("version", Integer, nullable=False),
    Column("definition", JSON, default=dict, nullable=False),
    Column("source", Text, nullable=False),
    Column("created_by", String(200), nullable=True),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("kind_id", "version"),
)


Index("ix_annotations_project_status", annotations.c.project_id, annotations.c.status)
# Paged item views read one page in import order (LIMIT / OFFSET over this index).
Index("ix_items_project_position", items.c.project_id, items.c.position)
# The claim queue: the first item in order that still has a free slot, without a scan.
Index("ix_items_project_queue", items.c.project_id, items.c.queue_full, items.c.position)
# Stale queue claims: a project's open claims by age.
Index(
    "ix_assignments_project_status",
    assignments.c.project_id,
    assignments.c.status,
    assignments.c.created_at,
)


drift_anchors = Table(
    "drift_anchors",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("evaluator", String(200), nullable=False),  # judge:NAME: shared by its versions
    Column("item_pk", ForeignKey("items.id", ondelete="CASCADE"), nullable=False),
    Column("stratum", String(200), nullable=True),  # the people's majority when stratified
    Column("seed", Integer, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("project_id", "evaluator", "item_pk"),
)


drift_checks = Table(
    "drift_checks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", ForeignKey("projects.id", ondelete="CASCADE"), index=True, nullable=False),
    Column("evaluator", String(200), nullable=False),
    Column("version", String(64), nullable=False),
    Column("model", String(200), nullable=True),
    Column("signature_text", Text, nullable=False),
    Column("field", String(200), nullable=False),
    Column("n_anchors", Integer, nullable=False),
    Column("figures", JSON, default=dict, nullable=False),  # agreement, kappa, people, moved
    Column("bar", String(200), nullable=False),
    Column("passed", Boolean, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)
