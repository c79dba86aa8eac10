"""Store operations on labels: idempotent upserts with history, item progress, frames."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotation_store.fast_columns import RawColumns, coded_column, rank_lookup
from annotation_store.models import (
    Adjudication,
    Annotation,
    AnnotationHistory,
    Annotator,
    AnnotatorExclusion,
    EvaluatorResult,
    EvaluatorRun,
    Item,
    ItemProgress,
    Project,
    utcnow,
)
from annotation_store.records import ImportReport, SaveOutcome
from annotation_store.store_base import StoreBase, dialect_insert
from common.lazy import LazyModule
from kinds import get_kind

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

STATUSES = ("draft", "submitted", "skipped")
VALUE_COLUMNS = {"value", "old_value", "new_value"}


def _frame(rows: Sequence[Any], columns: list[str]) -> pd.DataFrame:
    """Build a frame keeping label values as Python objects (pandas would turn None in a
    numeric column into NaN and lists into something else)."""
    data = {
        c: pd.Series([r[i] for r in rows], dtype=object if c in VALUE_COLUMNS else None)
        for i, c in enumerate(columns)
    }
    return pd.DataFrame(data, columns=columns)


FRAME_COLUMNS = [
    "item_id",
    "annotator",
    "field",
    "value",
    "status",
    "guideline_version",
    "updated_at",
]


class LabelsMixin(StoreBase):
    """Labels and per-item progress."""

    def save_label(
        self,
        project: str,
        item_id: str,
        annotator: str,
        field: str,
        value: Any,
        *,
        status: str = "draft",
        source: str = "app",
    ) -> SaveOutcome:
        """Validate and upsert one label (item x annotator x field).

        Saving the same value twice changes nothing and writes no history; a changed
        value or status updates the row in place and appends the old and new values to
        the history. Safe under retries, double clicks and concurrent writers.
        """
        with self.write() as s:
            proj = self._project_row(s, project)
            item = self._item_row(s, proj.id, item_id)
            who = self._annotator_row(s, annotator)
            field_spec = get_kind(proj.kind).human_field(field, proj.settings)
            canon = field_spec.validate(value, item.fields, draft=status == "draft")
            outcome = _upsert(s, proj, item.id, who.id, field, canon, status, source)
            _touch_progress(s, proj.id, item.id, who.id, None)
            return outcome

    def submit_item(
        self, project: str, item_id: str, annotator: str, seconds: float | None = None
    ) -> int:
        """Mark every label of this annotator on this item submitted; returns how many."""
        return self._set_item_status(project, item_id, annotator, "submitted", seconds)

    def skip_item(self, project: str, item_id: str, annotator: str) -> int:
        """Mark the item skipped for this annotator (labels given so far are kept as skipped)."""
        return self._set_item_status(project, item_id, annotator, "skipped", None)

    def _set_item_status(
        self, project: str, item_id: str, annotator: str, status: str, seconds: float | None
    ) -> int:
        with self.write() as s:
            proj = self._project_row(s, project)
            item = self._item_row(s, proj.id, item_id)
            who = self._annotator_row(s, annotator)
            rows = s.scalars(
                select(Annotation).where(
                    Annotation.item_pk == item.id, Annotation.annotator_id == who.id
                )
            ).all()
            if status == "submitted":
                kind = get_kind(proj.kind)
                for row in rows:  # a submitted label must pass the full, non-draft check
                    kind.human_field(row.field, proj.settings).validate(row.value, item.fields)
            for row in rows:
                _upsert(s, proj, item.id, who.id, row.field, row.value, status, "app")
            _touch_progress(s, proj.id, item.id, who.id, status, seconds)
            return len(rows)

    def set_note(
        self,
        project: str,
        item_id: str,
        annotator: str,
        note: str | None = None,
        flagged: bool | None = None,
    ) -> None:
        """Save an annotator's free-text note and problem flag on an item."""
        with self.write() as s:
            proj = self._project_row(s, project)
            item = self._item_row(s, proj.id, item_id)
            who = self._annotator_row(s, annotator)
            prog = _touch_progress(s, proj.id, item.id, who.id, None)
            if note is not None:
                prog.note = note
            if flagged is not None:
                prog.flagged = flagged

    def item_state(self, project: str, item_id: str, annotator: str) -> dict[str, Any]:
        """What one annotator has entered on one item: labels, status, note, flag."""
        with self.read() as s:
            proj = self._project_row(s, project)
            item = self._item_row(s, proj.id, item_id)
            who = s.scalar(select(Annotator).where(Annotator.name == annotator))
            if who is None:
                return {"labels": {}, "status": None, "note": "", "flagged": False}
            labels = {
                a.field: a.value
                for a in s.scalars(
                    select(Annotation).where(
                        Annotation.item_pk == item.id, Annotation.annotator_id == who.id
                    )
                )
            }
            prog = s.scalar(
                select(ItemProgress).where(
                    ItemProgress.item_pk == item.id, ItemProgress.annotator_id == who.id
                )
            )
            return {
                "labels": labels,
                "status": prog.status if prog else None,
                "note": prog.note if prog else "",
                "flagged": bool(prog.flagged) if prog else False,
            }

    def annotations_frame(
        self, project: str, statuses: Sequence[str] = ("submitted",)
    ) -> pd.DataFrame:
        """Labels as a tidy frame: item_id, annotator, field, value, status, ... .

        Rows are ordered by item position, annotator name and field.
        """
        raw = RawColumns(self.is_sqlite)
        with self.read() as s:
            pid = self._project_row(s, project).id
            items = self._item_keys(s, pid)
            people = s.execute(select(Annotator.id, Annotator.name).order_by(Annotator.name)).all()
            # No joins or ORDER BY in SQL: ids are mapped to names and sorted in numpy below,
            # which is several times faster than SQLite sorting 150,000 joined rows.
            q = select(
                Annotation.item_pk,
                Annotation.annotator_id,
                Annotation.field,
                raw.text(Annotation.value),
                Annotation.status,
                Annotation.guideline_version,
                raw.text(Annotation.updated_at),
            ).where(Annotation.project_id == pid, Annotation.status.in_(list(statuses)))
            rows = raw.fetch(s, q)
        if not rows:
            return _frame([], FRAME_COLUMNS)
        item_pk, annotator_id, field, value, status, version, updated = zip(*rows, strict=True)
        item_code = rank_lookup([r[0] for r in items])[np.asarray(item_pk, dtype=np.intp)]
        person_code = rank_lookup([r[0] for r in people])[np.asarray(annotator_id, dtype=np.intp)]
        field_code, field_names = pd.factorize(pd.Series(field, dtype=object), sort=True)
        status_code, status_names = pd.factorize(pd.Series(status, dtype=object))
        order = np.lexsort((field_code, person_code, item_code))
        values = raw.decode_json(value)
        frame = pd.DataFrame(
            {
                "item_id": coded_column([r[1] for r in items], item_code[order]),
                "annotator": coded_column([r[1] for r in people], person_code[order]),
                "field": coded_column(list(field_names), field_code[order]),
                "value": pd.Series([values[i] for i in order], dtype=object),
                "status": coded_column(list(status_names), status_code[order]),
                "guideline_version": pd.Series(np.asarray(version)[order]),
                "updated_at": raw.timestamps([updated[i] for i in order]),
            },
            columns=FRAME_COLUMNS,
        )
        return frame

    def progress_frame(self, project: str) -> pd.DataFrame:
        """Per item x annotator progress rows (status, note, flag, timing)."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            q = (
                select(
                    Item.item_id,
                    Annotator.name,
                    ItemProgress.status,
                    ItemProgress.note,
                    ItemProgress.flagged,
                    ItemProgress.started_at,
                    ItemProgress.submitted_at,
                    ItemProgress.seconds_spent,
                )
                .join(Item, Item.id == ItemProgress.item_pk)
                .join(Annotator, Annotator.id == ItemProgress.annotator_id)
                .where(ItemProgress.project_id == pid)
            )
            return pd.DataFrame(
                s.execute(q).all(),
                columns=[
                    "item_id",
                    "annotator",
                    "status",
                    "note",
                    "flagged",
                    "started_at",
                    "submitted_at",
                    "seconds_spent",
                ],
            )

    def history(self, project: str, item_id: str | None = None) -> pd.DataFrame:
        """The append-only change history of a project's labels (optionally one item)."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            q = (
                select(
                    Item.item_id,
                    Annotator.name,
                    Annotation.field,
                    AnnotationHistory.old_value,
                    AnnotationHistory.new_value,
                    AnnotationHistory.old_status,
                    AnnotationHistory.new_status,
                    AnnotationHistory.source,
                    AnnotationHistory.changed_at,
                )
                .join(Annotation, Annotation.id == AnnotationHistory.annotation_id)
                .join(Item, Item.id == Annotation.item_pk)
                .join(Annotator, Annotator.id == Annotation.annotator_id)
                .where(AnnotationHistory.project_id == pid)
                .order_by(AnnotationHistory.id)
            )
            if item_id is not None:
                q = q.where(Item.item_id == item_id)
            return _frame(
                s.execute(q).all(),
                [
                    "item_id",
                    "annotator",
                    "field",
                    "old_value",
                    "new_value",
                    "old_status",
                    "new_status",
                    "source",
                    "changed_at",
                ],
            )

    def data_version(self, project: str) -> str:
        """A cheap token that changes whenever labels, results or adjudications change."""
        with self.read() as s:
            pid = self._project_row(s, project).id
            a = s.execute(
                select(func.count(), func.max(Annotation.updated_at)).where(
                    Annotation.project_id == pid
                )
            ).one()
            h = s.scalar(
                select(func.max(AnnotationHistory.id)).where(AnnotationHistory.project_id == pid)
            )
            r = s.execute(
                select(func.count(EvaluatorResult.id), func.max(EvaluatorResult.id))
                .join(EvaluatorRun, EvaluatorRun.id == EvaluatorResult.run_id)
                .where(EvaluatorRun.project_id == pid)
            ).one()
            j = s.execute(
                select(func.count(), func.max(Adjudication.updated_at)).where(
                    Adjudication.project_id == pid
                )
            ).one()
            i = s.scalar(select(func.count()).select_from(Item).where(Item.project_id == pid))
            x = s.execute(
                select(func.count(), func.max(AnnotatorExclusion.created_at)).where(
                    AnnotatorExclusion.project_id == pid
                )
            ).one()
            return f"{pid}:{i}:{a[0]}:{a[1]}:{h}:{r[0]}:{r[1]}:{j[0]}:{j[1]}:{x[0]}:{x[1]}"

    def import_labels(
        self, project: str, rows: Sequence[Mapping[str, Any]], source: str = "import"
    ) -> ImportReport:
        """Upsert many already-validated labels in one transaction.

        Each row has ``item_id``, ``annotator``, ``field``, ``value`` and ``status``.
        Existing labels are loaded once, so large imports stay fast.
        """
        report = ImportReport()
        with self.write() as s:
            proj = self._project_row(s, project)
            items = dict(
                s.execute(select(Item.item_id, Item.id).where(Item.project_id == proj.id)).all()
            )
            people: dict[str, int] = {}
            # Names new to the workbench become external raters (no login) until an admin
            # turns one into an account with ``user add``.
            names = {str(row["annotator"]).strip() for row in rows}
            known = set(s.scalars(select(Annotator.name).where(Annotator.name.in_(names))))
            existing = {
                (a.item_pk, a.annotator_id, a.field): a
                for a in s.scalars(select(Annotation).where(Annotation.project_id == proj.id))
            }
            now = utcnow()
            new_rows: list[Annotation] = []
            for row in rows:
                name = str(row["annotator"])
                if name not in people:
                    who = self._annotator_row(s, name)
                    if who.name not in known:
                        who.external = True
                    people[name] = who.id
                key = (items[str(row["item_id"])], people[name], str(row["field"]))
                current = existing.get(key)
                if current is None:
                    ann = Annotation(
                        project_id=proj.id,
                        item_pk=key[0],
                        annotator_id=key[1],
                        field=key[2],
                        value=row["value"],
                        status=row["status"],
                        guideline_version=proj.guideline_version,
                        created_at=now,
                        updated_at=now,
                    )
                    new_rows.append(ann)
                    existing[key] = ann
                    report.created += 1
                elif current.value == row["value"] and current.status == row["status"]:
                    report.unchanged += 1
                else:
                    _apply_change(s, proj.id, current, row["value"], row["status"], source, now)
                    report.updated += 1
            s.add_all(new_rows)
            s.flush()
            s.add_all(
                [
                    AnnotationHistory(
                        project_id=proj.id,
                        annotation_id=a.id,
                        old_value=None,
                        new_value=a.value,
                        old_status=None,
                        new_status=a.status,
                        source=source,
                        changed_at=now,
                    )
                    for a in new_rows
                ]
            )
            self._sync_progress(s, proj.id, {(k[0], k[1]) for k in existing})
        return report

    @staticmethod
    def _sync_progress(s: Session, project_id: int, pairs: set[tuple[int, int]]) -> None:
        """Make item progress follow label status after a bulk import."""
        status_of: dict[tuple[int, int], set[str]] = {}
        for item_pk, who, st in s.execute(
            select(Annotation.item_pk, Annotation.annotator_id, Annotation.status).where(
                Annotation.project_id == project_id
            )
        ).all():
            status_of.setdefault((item_pk, who), set()).add(st)
        have = {
            (p.item_pk, p.annotator_id): p
            for p in s.scalars(select(ItemProgress).where(ItemProgress.project_id == project_id))
        }
        now = utcnow()
        for pair in pairs:
            statuses = status_of.get(pair, set())
            status = (
                "submitted"
                if statuses == {"submitted"}
                else ("skipped" if statuses == {"skipped"} else "draft")
            )
            prog = have.get(pair)
            if prog is None:
                s.add(
                    ItemProgress(
                        project_id=project_id,
                        item_pk=pair[0],
                        annotator_id=pair[1],
                        status=status,
                        started_at=now,
                        updated_at=now,
                        submitted_at=now if status == "submitted" else None,
                    )
                )
            elif prog.status != status:
                prog.status = status
                prog.updated_at = now


def _upsert(
    s: Session,
    proj: Project,
    item_pk: int,
    annotator_id: int,
    field: str,
    value: Any,
    status: str,
    source: str,
) -> SaveOutcome:
    if status not in STATUSES:
        raise ValueError(f"status must be one of {STATUSES}")
    where = (
        Annotation.item_pk == item_pk,
        Annotation.annotator_id == annotator_id,
        Annotation.field == field,
    )
    row = s.scalar(select(Annotation).where(*where).with_for_update())
    now = utcnow()
    if row is None:
        row = _insert_or_get(s, proj, item_pk, annotator_id, field, value, status, now)
        if row is None:  # we inserted it
            return SaveOutcome("created", value)
    if row.value == value and row.status == status:
        return SaveOutcome("unchanged", value)
    _apply_change(s, proj.id, row, value, status, source, now)
    return SaveOutcome("updated", value)


def _insert_or_get(
    s: Session,
    proj: Project,
    item_pk: int,
    annotator_id: int,
    field: str,
    value: Any,
    status: str,
    now: Any,
) -> Annotation | None:
    """Insert a new label; if a concurrent writer got there first, return its row."""
    values = dict(
        project_id=proj.id,
        item_pk=item_pk,
        annotator_id=annotator_id,
        field=field,
        value=value,
        status=status,
        guideline_version=proj.guideline_version,
        created_at=now,
        updated_at=now,
    )
    stmt = (
        dialect_insert(s, Annotation)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["item_pk", "annotator_id", "field"])
        .returning(Annotation.id)
    )
    new_id = s.scalar(stmt)
    if new_id is not None:
        s.add(
            AnnotationHistory(
                project_id=proj.id,
                annotation_id=new_id,
                old_value=None,
                new_value=value,
                old_status=None,
                new_status=status,
                source="app",
                changed_at=now,
            )
        )
        return None
    return s.scalar(
        select(Annotation)
        .where(
            Annotation.item_pk == item_pk,
            Annotation.annotator_id == annotator_id,
            Annotation.field == field,
        )
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def _apply_change(
    s: Session, project_id: int, row: Annotation, value: Any, status: str, source: str, now: Any
) -> None:
    s.add(
        AnnotationHistory(
            project_id=project_id,
            annotation_id=row.id,
            old_value=row.value,
            new_value=value,
            old_status=row.status,
            new_status=status,
            source=source,
            changed_at=now,
        )
    )
    row.value = value
    row.status = status
    row.updated_at = now


def _touch_progress(
    s: Session,
    project_id: int,
    item_pk: int,
    annotator_id: int,
    status: str | None,
    seconds: float | None = None,
) -> ItemProgress:
    prog = s.scalar(
        select(ItemProgress).where(
            ItemProgress.item_pk == item_pk, ItemProgress.annotator_id == annotator_id
        )
    )
    now = utcnow()
    if prog is None:
        prog = ItemProgress(
            project_id=project_id,
            item_pk=item_pk,
            annotator_id=annotator_id,
            status="draft",
            started_at=now,
            updated_at=now,
            note="",
            flagged=False,
            seconds_spent=0.0,
        )
        s.add(prog)
        s.flush()
    if status is not None:
        prog.status = status
        if status == "submitted":
            prog.submitted_at = now
            if seconds is not None:
                prog.seconds_spent = float(seconds)
    prog.updated_at = now
    return prog
