"""What an annotator may see of the projects: only their own, with their own counts."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from annotation_store.models import Annotation, Annotator, Assignment, Project
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
        names = dict(s.execute(select(Project.id, Project.name).where(Project.id.in_(mine))).all())
    by_name = {p.name: p for p in store.project_summaries()}  # kind and item count
    return [
        OwnProject(
            name,
            by_name[name].kind,
            by_name[name].items,
            assigned.get(pid, 0),
            labels.get((pid, "submitted"), 0),
            labels.get((pid, "draft"), 0),
        )
        for pid, name in sorted(names.items(), key=lambda kv: kv[1])
    ]
