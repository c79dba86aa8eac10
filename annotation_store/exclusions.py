"""Annotators excluded from a project's agreement figures, each with a reason and source.

An admin excludes by hand (source ``admin``); crowd-study checks exclude with their own
source (``gold``, ``qualification``, ``speed``, ...) through the same call, so every
exclusion states why. Including an annotator again removes their exclusions (all of
them, or one source's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select

from annotation_store.models import Annotator, AnnotatorExclusion, utcnow
from annotation_store.store_base import StoreBase
from annotation_store.store_projects import StoreError
from kinds import ValidationError

SOURCE_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,31}")


@dataclass(frozen=True)
class ExclusionRecord:
    """One exclusion of an annotator from a project."""

    annotator: str
    source: str
    reason: str
    created_by: str | None
    created_at: datetime


class ExclusionsMixin(StoreBase):
    """Store methods for annotator exclusions."""

    def exclude_annotator(
        self,
        project: str,
        annotator: str,
        reason: str,
        source: str = "admin",
        by: str | None = None,
    ) -> ExclusionRecord:
        """Exclude ``annotator`` from ``project``'s agreement figures (again: new reason)."""
        reason = " ".join((reason or "").split())
        if not reason:
            raise ValidationError("an exclusion needs a reason")
        if not SOURCE_PATTERN.fullmatch(source or ""):
            raise ValidationError(
                f"exclusion source must be a short lower-case word, got {source!r}"
            )
        with self.write() as s:
            pid = self._project_row(s, project).id
            aid = s.scalar(select(Annotator.id).where(Annotator.name == annotator))
            if aid is None:
                raise StoreError(f"no annotator called {annotator!r}")
            row = s.scalar(
                select(AnnotatorExclusion).where(
                    AnnotatorExclusion.project_id == pid,
                    AnnotatorExclusion.annotator_id == aid,
                    AnnotatorExclusion.source == source,
                )
            )
            if row is None:
                row = AnnotatorExclusion(project_id=pid, annotator_id=aid, source=source)
                s.add(row)
            row.reason, row.created_by, row.created_at = reason, by, utcnow()
            s.flush()
            return ExclusionRecord(annotator, source, reason, by, row.created_at)

    def include_annotator(self, project: str, annotator: str, source: str | None = None) -> int:
        """Lift ``annotator``'s exclusions from ``project`` (only ``source``'s if given);
        returns how many were lifted."""
        with self.write() as s:
            pid = self._project_row(s, project).id
            aid = s.scalar(select(Annotator.id).where(Annotator.name == annotator))
            if aid is None:
                raise StoreError(f"no annotator called {annotator!r}")
            q = delete(AnnotatorExclusion).where(
                AnnotatorExclusion.project_id == pid, AnnotatorExclusion.annotator_id == aid
            )
            if source is not None:
                q = q.where(AnnotatorExclusion.source == source)
            return s.execute(q).rowcount or 0

    def exclusions(self, project: str) -> list[ExclusionRecord]:
        """Every exclusion in ``project``, by annotator and source."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            rows = s.execute(
                select(AnnotatorExclusion, Annotator.name)
                .join(Annotator, Annotator.id == AnnotatorExclusion.annotator_id)
                .where(AnnotatorExclusion.project_id == pid)
                .order_by(Annotator.name, AnnotatorExclusion.source)
            ).all()
            return [
                ExclusionRecord(name, r.source, r.reason, r.created_by, r.created_at)
                for r, name in rows
            ]

    def excluded_annotators(self, project: str) -> dict[str, list[ExclusionRecord]]:
        """Excluded annotator -> their exclusions (empty when nobody is excluded)."""
        out: dict[str, list[ExclusionRecord]] = {}
        for rec in self.exclusions(project):
            out.setdefault(rec.annotator, []).append(rec)
        return out
