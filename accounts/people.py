"""The users table of the admin page: who each person is and what they have done."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from annotation_store.models import Annotation, Annotator, AuthSession, StudyParticipant
from annotation_store.store import Store

#: How a person came to the workbench, in words for the table.
KIND_WORDS = {
    "internal": "internal",
    "external": "external rater",
    "crowd": "crowd",
}


@dataclass(frozen=True)
class PersonRow:
    """One row of the users table."""

    name: str
    role: str
    kind: str  # a key of KIND_WORDS
    email: str
    has_password: bool
    active: bool
    labels: int  # labels given (submitted or skipped, every project)
    last_active: datetime | None  # latest label change or sign-in activity


def _latest(*moments: datetime | None) -> datetime | None:
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def people_rows(store: Store) -> list[PersonRow]:
    """Every user, by name, with kind, labels given and last activity."""
    with store.read() as s:
        labels = dict(
            s.execute(
                select(Annotation.annotator_id, func.count())
                .where(Annotation.status != "draft")
                .group_by(Annotation.annotator_id)
            ).all()
        )
        label_at = dict(
            s.execute(
                select(Annotation.annotator_id, func.max(Annotation.updated_at)).group_by(
                    Annotation.annotator_id
                )
            ).all()
        )
        seen_at = dict(
            s.execute(
                select(AuthSession.annotator_id, func.max(AuthSession.last_seen_at)).group_by(
                    AuthSession.annotator_id
                )
            ).all()
        )
        # people who came in by a study link (a signed-in account joining a study stays internal)
        crowd = set(
            s.scalars(
                select(StudyParticipant.annotator_id).where(StudyParticipant.platform != "account")
            )
        )
        people = s.scalars(select(Annotator).order_by(Annotator.name)).all()
        return [
            PersonRow(
                name=p.name,
                role=p.role,
                kind="external" if p.external else "crowd" if p.id in crowd else "internal",
                email=p.email or "",
                has_password=p.password_hash is not None,
                active=bool(p.active),
                labels=int(labels.get(p.id, 0)),
                last_active=_latest(label_at.get(p.id), seen_at.get(p.id)),
            )
            for p in people
        ]
