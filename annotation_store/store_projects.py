"""Store operations on projects, guidelines, items, fact lists and annotators."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Row, func, select, text, true, update

from annotation_store.fast_columns import RawColumns
from annotation_store.item_upsert import STAGE_ATTEMPTS, ItemStage, change_token
from annotation_store.models import (
    Annotator,
    FactListVersion,
    GuidelineVersion,
    Item,
    Project,
    map_models,
)
from annotation_store.records import (
    ROLES,
    AnnotatorInfo,
    ImportReport,
    ItemRecord,
    ProjectInfo,
    ProjectSummary,
)
from annotation_store.store_base import StoreBase, StoreError
from annotation_store.store_kinds import _pin_kind
from kinds import ValidationError, get_kind

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


def project_info(row: Project | Row[Any]) -> ProjectInfo:
    """Convert a Project row (ORM or Core) to a record."""
    return ProjectInfo(
        row.id,
        row.name,
        row.kind,
        dict(row.settings or {}),
        row.guideline,
        row.guideline_version,
        row.created_at,
    )


def item_record(row: Item) -> ItemRecord:
    """Convert an Item row to a record."""
    return ItemRecord(
        row.id, row.item_id, row.position, dict(row.fields or {}), row.split, row.generator
    )


def annotator_info(row: Annotator) -> AnnotatorInfo:
    """Convert an Annotator row to a record."""
    return AnnotatorInfo(
        row.id, row.name, row.role, row.email, bool(row.password_hash), bool(row.external)
    )


class ProjectsMixin(StoreBase):
    """Projects, items and annotators."""

    # -- projects -----------------------------------------------------------------------
    def create_project(
        self,
        name: str,
        kind: str,
        settings: Mapping[str, Any] | None = None,
        guideline: str | None = None,
    ) -> ProjectInfo:
        """Create a project; settings are validated against the kind."""
        name = name.strip()
        if not name:
            raise StoreError("a project needs a name")
        kind = _pin_kind(self, kind)  # a declared kind: the version it is made with
        task_kind = get_kind(kind)
        merged = task_kind.validate_settings(settings)
        text = guideline if guideline is not None else task_kind.guideline
        with self.write() as s:
            if s.scalar(select(Project.id).where(Project.name == name)) is not None:
                raise StoreError(f"project {name!r} already exists")
            row = Project(
                name=name, kind=kind, settings=merged, guideline=text, guideline_version=1
            )
            s.add(row)
            s.flush()
            s.add(GuidelineVersion(project_id=row.id, version=1, text=text))
            return project_info(row)

    def project(self, name: str) -> ProjectInfo:
        """The project called ``name``."""
        projects = Project.__table__  # Core: evaluate reads it before any ORM use
        with self.read_connection() as conn:
            row = conn.execute(select(projects).where(projects.c.name == name)).first()
        if row is None:
            raise StoreError(f"no project called {name!r}")
        return project_info(row)

    def projects(self) -> list[ProjectInfo]:
        """Every project, by name."""
        with self.read() as s:
            return [project_info(r) for r in s.scalars(select(Project).order_by(Project.name))]

    def project_summaries(self) -> list[ProjectSummary]:
        """Every project with item, annotator, label and result counts."""
        from annotation_store.summaries import SUMMARY_SQL, summaries

        with self.read() as s:
            return summaries(s.execute(text(SUMMARY_SQL)).all())

    def update_settings(self, name: str, settings: Mapping[str, Any]) -> ProjectInfo:
        """Replace a project's settings (validated against its kind)."""
        with self.write() as s:
            row = self._project_row(s, name)
            row.settings = get_kind(row.kind).validate_settings(settings)
            # k or the study's rules may have changed: the claim queue's full marks go
            s.execute(
                update(Item)
                .where(Item.project_id == row.id, Item.queue_full == true())
                .values(queue_full=False)
            )
            return project_info(row)

    def update_guideline(self, name: str, text: str) -> int:
        """Store a new guideline version and return its number (unchanged text: no bump)."""
        with self.write() as s:
            row = self._project_row(s, name)
            if text == row.guideline:
                return row.guideline_version
            row.guideline_version += 1
            row.guideline = text
            s.add(GuidelineVersion(project_id=row.id, version=row.guideline_version, text=text))
            return row.guideline_version

    def delete_project(self, name: str) -> None:
        """Delete a project and everything in it."""
        with self.write() as s:
            s.delete(self._project_row(s, name))

    # -- items --------------------------------------------------------------------------
    def upsert_items(
        self, project: str, rows: Sequence[Mapping[str, Any]], source: str = "import"
    ) -> ImportReport:
        """Insert or update items in one transaction.

        Each row has ``item_id``, ``fields`` (already validated), and optional ``split``
        and ``generator``. An identical row changes nothing. See
        :meth:`upsert_item_batches`."""
        return self.upsert_item_batches(project, lambda: [rows], source)

    def upsert_item_batches(
        self,
        project: str,
        batches: Callable[[], Iterable[Sequence[Mapping[str, Any]]]],
        source: str = "import",
    ) -> ImportReport:
        """Insert or update the rows of ``batches()`` (rows as for :meth:`upsert_items`)
        in one transaction, holding one batch in memory at a time.

        The rows are compared with the stored items and staged before the write lock is
        taken, then copied in (see :mod:`annotation_store.item_upsert`), so other writers
        wait a moment, not the whole import. ``batches`` is called again if another writer
        changed the project's items meanwhile."""
        with self.read() as s:
            pid = self._project_row(s, project).id
        for attempt in range(STAGE_ATTEMPTS):
            report = self._stage_items(pid, batches, source, attempt == STAGE_ATTEMPTS - 1)
            if report is not None:
                return report
        raise AssertionError("the locked attempt always writes")

    def _stage_items(
        self,
        pid: int,
        batches: Callable[[], Iterable[Sequence[Mapping[str, Any]]]],
        source: str,
        locked: bool,
    ) -> ImportReport | None:
        """Stage, then write; None if the items changed in between (unless ``locked``:
        then the staging itself holds the write lock, so nothing can change)."""
        from sqlalchemy.orm import Session

        map_models()

        def lookup(s: Session, ids: Sequence[str]) -> list[ItemRecord]:
            return self._item_records(s, pid, item_ids=ids)

        with self.engine.connect() as conn, ItemStage(conn, pid, source) as stage:
            if locked:
                with self._write_lock(conn), Session(bind=conn) as s:
                    return stage.write(s, stage.fill(s, change_token(s, pid), batches(), lookup))
            with conn.begin(), Session(bind=conn) as s:
                plan = stage.fill(s, change_token(s, pid), batches(), lookup)
            with self._write_lock(conn), Session(bind=conn) as s:
                return stage.write(s, plan) if change_token(s, pid) == plan.token else None

    def items(self, project: str) -> list[ItemRecord]:
        """Every item of a project, in import order."""
        with self.read_connection() as conn:
            return self._item_records(conn, self._project_id(conn, project))

    def items_page(self, project: str, offset: int, limit: int) -> list[ItemRecord]:
        """One page of a project's items in import order (``LIMIT`` / ``OFFSET`` in SQL),
        so a view of a 100,000-item project reads only the rows it shows."""
        if offset < 0 or limit < 1:
            raise StoreError("a page needs offset >= 0 and limit >= 1")
        with self.read() as s:
            return self._item_records(
                s, self._project_row(s, project).id, offset=offset, limit=limit
            )

    def _item_records(
        self,
        s: Session | Connection,
        pid: int,
        offset: int = 0,
        limit: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> list[ItemRecord]:
        """The project's items in order; a page of them, or only those in ``item_ids``."""
        if item_ids is not None:  # in chunks, well under SQLite's bound-parameter limit
            return [
                record
                for start in range(0, len(item_ids), 500)
                for record in self._item_rows(s, pid, item_ids=item_ids[start : start + 500])
            ]
        return self._item_rows(s, pid, offset, limit)

    def _item_rows(
        self,
        s: Session | Connection,
        pid: int,
        offset: int = 0,
        limit: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> list[ItemRecord]:
        raw = RawColumns(self.is_sqlite)
        c = Item.__table__.c  # Core columns: no ORM needed to list items
        q = select(c.id, c.item_id, c.position, raw.text(c.fields), c.split, c.generator).where(
            c.project_id == pid
        )
        if item_ids is not None:  # unordered, so SQLite looks each id up in the unique index
            q = q.where(c.item_id.in_(item_ids))
        else:
            q = q.order_by(c.position, c.id)
        if limit is not None:
            q = q.offset(offset).limit(limit)
        rows = raw.fetch(s, q)
        fields = raw.decode_json([r[3] for r in rows])
        return [
            ItemRecord(r[0], r[1], r[2], f or {}, r[4], r[5])
            for r, f in zip(rows, fields, strict=True)
        ]

    def item(self, project: str, item_id: str) -> ItemRecord:
        """One item by its external id."""
        with self.read() as s:
            return item_record(self._item_row(s, self._project_row(s, project).id, item_id))

    def item_count(self, project: str) -> int:
        """Number of items in a project."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            return (
                s.scalar(select(func.count()).select_from(Item).where(Item.project_id == pid)) or 0
            )

    def set_item_fields(
        self,
        project: str,
        item_id: str,
        updates: Mapping[str, Any],
        *,
        only_if_missing: bool = True,
        source: str = "edit",
        by: str | None = None,
    ) -> dict[str, Any]:
        """Set item fields (fact lists are versioned). With ``only_if_missing``, fields that
        already hold a value are kept: facts fixed once stay fixed. Returns the new fields."""
        with self.write() as s:
            proj = self._project_row(s, project)
            row = self._item_row(s, proj.id, item_id)
            old = dict(row.fields or {})
            new = dict(old)
            for key, value in updates.items():
                if only_if_missing and old.get(key) not in (None, "", []):
                    continue
                new[key] = value
            new = get_kind(proj.kind).validate_item(new)
            if new != old:
                self._record_facts(s, row, old, new, source, by)
                row.fields = new
            return new

    def fact_versions(self, project: str, item_id: str) -> list[dict[str, Any]]:
        """Every version of an item's fact lists, oldest first."""
        with self.read() as s:
            row = self._item_row(s, self._project_row(s, project).id, item_id)
            versions = s.scalars(
                select(FactListVersion)
                .where(FactListVersion.item_pk == row.id)
                .order_by(FactListVersion.field, FactListVersion.version)
            )
            return [
                {
                    "field": v.field,
                    "version": v.version,
                    "facts": v.facts,
                    "source": v.source,
                    "created_by": v.created_by,
                    "created_at": v.created_at,
                }
                for v in versions
            ]

    # -- annotators ---------------------------------------------------------------------
    def ensure_annotator(self, name: str, role: str = "annotator") -> AnnotatorInfo:
        """Return the annotator called ``name``, creating it with ``role`` if new."""
        with self.write() as s:
            return annotator_info(self._annotator_row(s, name, role))

    def annotator(self, name: str) -> AnnotatorInfo | None:
        """The annotator called ``name``, or None."""
        with self.read() as s:
            row = s.scalar(select(Annotator).where(Annotator.name == name))
            return annotator_info(row) if row else None

    def annotators(self) -> list[AnnotatorInfo]:
        """Every annotator, by name."""
        with self.read() as s:
            return [
                annotator_info(r) for r in s.scalars(select(Annotator).order_by(Annotator.name))
            ]

    def set_role(self, name: str, role: str) -> AnnotatorInfo:
        """Change an annotator's role."""
        if role not in ROLES:
            raise ValidationError(f"role must be one of {ROLES}, got {role!r}")
        with self.write() as s:
            row = s.scalar(select(Annotator).where(Annotator.name == name))
            if row is None:
                raise StoreError(f"no annotator called {name!r}")
            row.role = role
            return annotator_info(row)

    def item_ids(self, project: str, ids: Iterable[str] | None = None) -> dict[str, int]:
        """Map external item ids to primary keys (all items, or just ``ids``)."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            q = select(Item.item_id, Item.id).where(Item.project_id == pid)
            if ids is not None:
                q = q.where(Item.item_id.in_(list(ids)))
            return dict(s.execute(q).all())
