"""Plain, immutable records the store hands out (no ORM objects leave the store)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kinds import TaskKind, get_kind

if TYPE_CHECKING:
    import pandas as pd

ROLES = ("admin", "reviewer", "annotator")


def utcnow() -> datetime:
    """Timezone-aware now in UTC (stored as naive UTC for SQLite compatibility)."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class ProjectInfo:
    """A project: its kind, settings and current guideline."""

    id: int
    name: str
    kind: str
    settings: dict[str, Any]
    guideline: str
    guideline_version: int
    created_at: datetime

    @property
    def task_kind(self) -> TaskKind:
        """The registered task kind of this project."""
        return get_kind(self.kind)

    @property
    def k(self) -> int:
        """Number of annotators wanted per item."""
        return int(self.task_kind.settings(self.settings)["k"])


@dataclass(frozen=True)
class ProjectSummary:
    """A project with counts, for listings."""

    name: str
    kind: str
    items: int
    annotators: int
    submitted_labels: int
    draft_labels: int
    evaluator_results: int


@dataclass(frozen=True)
class ItemRecord:
    """An item as the views and evaluators see it."""

    pk: int
    item_id: str
    position: int
    fields: dict[str, Any]
    split: str | None = None
    generator: str | None = None


@dataclass(frozen=True)
class AnnotatorInfo:
    """A person who labels."""

    id: int
    name: str
    role: str
    email: str | None = None
    has_password: bool = False
    external: bool = False  # an imported rater without a login


@dataclass(frozen=True)
class SaveOutcome:
    """What a label save did: ``created``, ``updated`` or ``unchanged``."""

    action: str
    value: Any


@dataclass
class ImportReport:
    """What an import did, counted per action."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self, what: str) -> str:
        """One line for the CLI and the app."""
        return f"{what}: {self.created} created, {self.updated} updated, {self.unchanged} unchanged"


@dataclass(frozen=True)
class RunInfo:
    """One evaluator run: its signature, where it came from, its state and its cost."""

    id: int
    evaluator: str
    version: str
    model: str | None
    signature: Mapping[str, Any]
    signature_text: str
    run_index: int
    source: str  # "run" (evaluated here) or "import"
    job_id: int | None
    status: str  # running / done / failed / cancelled / stopped (its process died)
    tokens_in: int
    tokens_out: int
    cost: float
    created_at: datetime
    finished_at: datetime | None
    heartbeat_at: datetime | None = None


@dataclass(frozen=True)
class JobInfo:
    """A background job as stored: parameters, status, progress and its worker's lease.

    ``claimed_by`` names the worker holding the job; the lease lasts while that worker
    stamps ``heartbeat_at``. ``attempts`` counts claims (more than one: a worker died and
    another took the job over, skipping what the first one had stored).
    """

    id: int
    project_id: int
    kind: str
    params: dict[str, Any]
    status: str
    progress: dict[str, Any]
    error: str | None
    created_by: str | None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    heartbeat_at: datetime | None = None
    claimed_by: str | None = None
    attempts: int = 0


@dataclass(frozen=True)
class StudyChecks:
    """What the study says about its labels: the gold items and the workers who did not
    qualify (neither enters agreement: ``study_inputs.labels`` leaves them out), and the
    times the speeder alarm reads with what they are (``Store.study_checks``: the active
    time the browser measured, else the time on task a platform reported)."""

    gold_items: frozenset[str]
    not_qualified: frozenset[str]
    times: pd.DataFrame
    time_source: str | None
