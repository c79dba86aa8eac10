"""What an annotator may see of the projects: only their own, with their own counts."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from annotation_store.models import Annotation, Annotator, Assignment, Item, Project
from annotation_store.store import Store


@dataclass(frozen=True)
class OwnProject:
    """A project an annotator takes part in (assigned items or own labels)."""

    name: str
    kind: str
    items: int
    assigned: int
    submitted_labels: int
    draft_labels: int


def own_projects(store: Store, annotator: str) -> list[OwnProject]:
    """Projects where ``annotator`` has assigned items or labels, with only their counts."""
    with store.read() as s:
        who = s.scalar(select(Annotator.id).where(Annotator.name == annotator))
        if who is None:
            return []
        assigned = dict(
            s.execute(
                select(Assignment.project_id, func.count())
                .where(Assignment.annotator_id == who)
                .group_by(Assignment.project_id)
            ).all()
        )
        labels = {
            (pid, status): n
            for pid, status, n in s.execute(
                select(Annotation.project_id, Annotation.status, func.count())
                .where(Annotation.annotator_id == who)
                .group_by(Annotation.project_id, Annotation.status)
            ).all()
        }
        mine = set(assigned) | {pid for pid, _ in labels}
        if not mine:
            return []
        items = dict(
            s.execute(
                select(Item.project_id, func.count())
                .where(Item.project_id.in_(mine))
                .group_by(Item.project_id)
            ).all()
        )
        projects = s.scalars(select(Project).where(Project.id.in_(mine)).order_by(Project.name))
        return [
            OwnProject(
                p.name,
                p.kind,
                items.get(p.id, 0),
                assigned.get(p.id, 0),
                labels.get((p.id, "submitted"), 0),
                labels.get((p.id, "draft"), 0),
            )
            for p in projects
        ]
