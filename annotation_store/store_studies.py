"""Store reads a study's checks: the gold items, the workers who did not qualify and the
times on task, in one session (what a study's agreement figures leave out or alarm on)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotation_store.records import StudyChecks
from annotation_store.store_base import StoreBase
from annotation_store.store_projects import StoreError

if TYPE_CHECKING:
    import pandas as pd
    from sqlalchemy.orm import Session

TIME_COLUMNS = ["annotator", "item_id", "active_seconds"]


def _submitted(s: Session, project: str, *columns: Any) -> list[Any]:
    """(annotator, item_id, *columns) of the submitted items whose first column is set."""
    from annotation_store.models import Annotator, Item, ItemProgress, Project

    return list(
        s.execute(
            select(Annotator.name, Item.item_id, *columns)
            .join(Item, Item.id == ItemProgress.item_pk)
            .join(Project, Project.id == Item.project_id)
            .join(Annotator, Annotator.id == ItemProgress.annotator_id)
            .where(
                Project.name == project,
                ItemProgress.status == "submitted",
                columns[0].is_not(None),
            )
        ).all()
    )


def _active(s: Session, project: str) -> pd.DataFrame:
    # imported on first use, like the ORM: an evaluate process never reads a study's times
    import pandas as pd

    from annotation_store.models import ItemProgress

    return pd.DataFrame(_submitted(s, project, ItemProgress.active_seconds), columns=TIME_COLUMNS)


def _platform(s: Session, project: str) -> tuple[pd.DataFrame, str | None]:
    import pandas as pd

    from annotation_store.models import ItemProgress

    rows = _submitted(s, project, ItemProgress.time_source, ItemProgress.seconds_spent)
    frame = pd.DataFrame(rows, columns=["annotator", "item_id", "source", "active_seconds"])
    if frame.empty:
        return frame.drop(columns="source"), None
    source = str(frame["source"].mode().iloc[0])
    return frame.drop(columns="source"), f"time on task reported by the platform: {source}"


def _alarm(s: Session, project: str) -> tuple[pd.DataFrame, str | None]:
    """The times the speeder alarm reads and what they are: the active time the browser
    measured when the project has any (None), else the time on task a platform reported
    (its description)."""
    times = _active(s, project)
    if not times.empty:
        return times, None
    platform, source = _platform(s, project)
    return (platform, source) if source else (times, None)


def _no_times() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(columns=TIME_COLUMNS)


class StudiesMixin(StoreBase):
    """Store methods reading a study's checks and times on task."""

    def active_times(self, project: str) -> pd.DataFrame:
        """Submitted items with a measured active time: annotator, item_id, active_seconds."""
        with self.read() as s:
            return _active(s, project)

    def platform_times(self, project: str) -> tuple[pd.DataFrame, str | None]:
        """Submitted items with a time on task a platform reported (an import: MTurk's
        ``WorkTimeInSeconds``...), as ``active_times``' columns, and where it came from
        (None: no such time)."""
        with self.read() as s:
            return _platform(s, project)

    def study_checks(self, project: str, *, times: bool = True) -> StudyChecks:
        """The study's checks of one project in one read (see ``StudyChecks``);
        ``times=False`` leaves the speeder alarm's times out (empty), for a caller that
        never reads them."""
        from annotation_store.models import Annotator, GoldItem, Item, Project, StudyParticipant

        with self.read() as s:
            pid = s.scalar(select(Project.id).where(Project.name == project))
            if pid is None:
                raise StoreError(f"no project called {project!r}")
            golds = s.scalars(
                select(Item.item_id)
                .join(GoldItem, GoldItem.item_pk == Item.id)
                .where(GoldItem.project_id == pid)
            ).all()
            failed = s.scalars(
                select(Annotator.name)
                .join(StudyParticipant, StudyParticipant.annotator_id == Annotator.id)
                .where(StudyParticipant.project_id == pid, StudyParticipant.qualified.is_(False))
            ).all()
            measured, source = _alarm(s, project) if times else (_no_times(), None)
        return StudyChecks(frozenset(golds), frozenset(failed), measured, source)
