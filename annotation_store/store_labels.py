"""Store operations on labels: idempotent upserts with history, item progress, frames."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, func, select

from annotation_store import label_stage
from annotation_store.fast_columns import (
    Coder,
    RawColumns,
    categorical_column,
    coded_column,
    rank_lookup,
)
from annotation_store.import_journal import Journal
from annotation_store.label_import import (
    CheckedRows,
    check_rows,
    existing_labels,
    plan_import,
    undo_import,
    write_at_once,
    write_chunked,
)
from annotation_store.label_writes import (
    LabelTarget,
    delete_label,
    find_target,
    set_labels_status,
    touch_progress,
    upsert_label,
)
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
    map_models,
    utcnow,
)
from annotation_store.records import ImportReport, SaveOutcome
from annotation_store.store_base import StoreBase, StoreError
from common.lazy import LazyModule
from kinds import get_kind

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np
    import pandas as pd
    from sqlalchemy.orm import Session
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

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
        target: LabelTarget | None = None,
    ) -> SaveOutcome:
        """Validate and upsert one label (item x annotator x field).

        Saving the same value twice changes nothing and writes no history; a changed
        value or status updates the row in place and appends the old and new values to
        the history. Safe under retries, double clicks and concurrent writers. One short
        transaction of a few statements (:mod:`annotation_store.label_writes`).
        ``target``: the project, item and annotator as the caller just read them (the
        item's fields unblinded), else they are read here.
        """
        with self.write() as s:
            t = target or find_target(s, project, item_id, annotator.strip())
            who = self._target_annotator(s, t, annotator)
            field_spec = get_kind(t.kind).human_field(field, t.settings)
            canon = field_spec.validate(value, t.item_fields, draft=status == "draft")
            now = utcnow()
            outcome = upsert_label(s, t, who, field, canon, status, source, now)
            touch_progress(s, t.project_id, t.item_pk, who, now)
            return outcome

    def clear_label(self, project: str, item_id: str, annotator: str, field: str) -> bool:
        """Remove one label (item x annotator x field), as an annotator emptying an
        answer; True when there was one. Its history goes with it."""
        with self.write() as s:
            t = find_target(s, project, item_id, annotator.strip())
            if t.annotator_id is None:
                return False
            cleared = delete_label(s, t, t.annotator_id, field)
            if cleared:
                touch_progress(s, t.project_id, t.item_pk, t.annotator_id, utcnow())
            return cleared

    def submit_item(
        self, project: str, item_id: str, annotator: str, seconds: float | None = None
    ) -> int:
        """Mark every label of this annotator on this item submitted; returns how many."""
        with self.write() as s:
            t = find_target(s, project, item_id, annotator.strip())
            return self.set_item_status(s, t, annotator, "submitted", seconds)

    def skip_item(self, project: str, item_id: str, annotator: str) -> int:
        """Mark the item skipped for this annotator (labels given so far are kept as skipped)."""
        with self.write() as s:
            t = find_target(s, project, item_id, annotator.strip())
            return self.set_item_status(s, t, annotator, "skipped", None)

    def set_item_status(
        self, s: Session, t: LabelTarget, annotator: str, status: str, seconds: float | None
    ) -> int:
        """Inside a write session: give the annotator's labels on the item ``status`` and
        update their progress; submitted labels must pass the full, non-draft check."""
        who = self._target_annotator(s, t, annotator)
        check = submit_check(t) if status == "submitted" else None
        now = utcnow()
        n = set_labels_status(s, t, who, status, now, check)
        changes: dict[str, Any] = {"status": status}
        if status == "submitted":
            changes["submitted_at"] = now
            if seconds is not None:
                changes["seconds_spent"] = float(seconds)
        touch_progress(s, t.project_id, t.item_pk, who, now, **changes)
        return n

    def _target_annotator(self, s: Session, t: LabelTarget, annotator: str) -> int:
        """The target's annotator id, creating the annotator when the name is new."""
        if t.annotator_id is not None:
            return t.annotator_id
        return self._annotator_row(s, annotator).id

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
            t = find_target(s, project, item_id, annotator.strip())
            who = self._target_annotator(s, t, annotator)
            changes = {k: v for k, v in (("note", note), ("flagged", flagged)) if v is not None}
            touch_progress(s, t.project_id, t.item_pk, who, utcnow(), **changes)

    def item_state(self, project: str, item_id: str, annotator: str) -> dict[str, Any]:
        """What one annotator has entered on one item: labels, status, note, flag.

        One SELECT (project, item, progress and labels joined), outside any transaction
        on PostgreSQL: it runs before every label save.
        """
        q = (
            select(
                Item.id,
                ItemProgress.id.label("progress_id"),
                ItemProgress.status,
                ItemProgress.note,
                ItemProgress.flagged,
                Annotation.field,
                Annotation.value,
            )
            .select_from(Project)
            .outerjoin(Item, and_(Item.project_id == Project.id, Item.item_id == item_id))
            .outerjoin(Annotator, Annotator.name == annotator)
            .outerjoin(
                ItemProgress,
                and_(ItemProgress.item_pk == Item.id, ItemProgress.annotator_id == Annotator.id),
            )
            .outerjoin(
                Annotation,
                and_(Annotation.item_pk == Item.id, Annotation.annotator_id == Annotator.id),
            )
            .where(Project.name == project)
            .order_by(Annotation.id)
        )
        with self.read_statement() as conn:
            rows = conn.execute(q).all()
        if not rows:
            raise StoreError(f"no project called {project!r}")
        first = rows[0]
        if first[0] is None:
            raise StoreError(f"no item {item_id!r} in this project")
        has_progress = first.progress_id is not None
        return {
            "labels": {r.field: r.value for r in rows if r.field is not None},
            "status": first.status,
            "note": first.note if has_progress else "",
            "flagged": bool(first.flagged) if has_progress else False,
        }

    def annotations_frame(
        self,
        project: str,
        statuses: Sequence[str] = ("submitted",),
        item_id: str | None = None,
        *,
        categorical: bool = False,
    ) -> pd.DataFrame:
        """Labels as a tidy frame: item_id, annotator, field, value, status, ... .

        Rows are ordered by item position, annotator name and field. ``item_id``: only that
        item's labels (one item's drill-down need not read the whole project's).
        ``categorical``: the name columns (item_id, annotator, field, status) as
        categoricals (``categorical_column``) instead of strings: a fraction of the memory
        for a reader that only compares, groups and codes them.
        """
        raw = RawColumns(self.is_sqlite)
        with self.read() as s:
            pid = self._project_row(s, project).id
            if item_id is None:
                items = self._item_keys(s, pid)
            else:  # one item's key, not the 10,000 of a large project
                pk = s.scalar(
                    select(Item.id).where(Item.project_id == pid, Item.item_id == item_id)
                )
                items = [] if pk is None else [(int(pk), item_id)]
            people = s.execute(select(Annotator.id, Annotator.name).order_by(Annotator.name)).all()
            # No joins or ORDER BY in SQL: ids are mapped to names and sorted in numpy below,
            # which is several times faster than SQLite sorting 150,000 joined rows. With
            # one status asked for, every row has it: the column is not read.
            wanted = list(dict.fromkeys(statuses))
            status_column = [Annotation.status] if len(wanted) > 1 else []
            q = select(
                Annotation.item_pk,
                Annotation.annotator_id,
                Annotation.field,
                raw.text(Annotation.value),
                Annotation.guideline_version,
                raw.text(Annotation.updated_at),
                *status_column,
            ).where(Annotation.project_id == pid, Annotation.status.in_(wanted))
            if item_id is not None:
                q = q.where(Annotation.item_pk == (items[0][0] if items else -1))
            # a batch of rows at a time into codes and plain lists: holding every row's
            # tuple and strings at once cost more than the frame itself (1.5M labels)
            item_pks: list[np.ndarray] = []
            person_ids: list[np.ndarray] = []
            values: list[Any] = []
            version: list[Any] = []
            field, updated, status = Coder(), Coder(), Coder()
            for batch in raw.fetch_batches(s, q):
                columns = list(zip(*batch, strict=True))
                item_pks.append(np.asarray(columns[0], dtype=np.intp))
                person_ids.append(np.asarray(columns[1], dtype=np.intp))
                field.add(columns[2], len(batch))
                values += raw.decode_json(columns[3])
                version += columns[4]
                updated.add(columns[5], len(batch))
                if status_column:
                    status.add(columns[6], len(batch))
                del batch, columns
        if not values:
            return _frame([], FRAME_COLUMNS)
        item_code = rank_lookup([r[0] for r in items])[np.concatenate(item_pks)]
        person_code = rank_lookup([r[0] for r in people])[np.concatenate(person_ids)]
        del item_pks, person_ids
        field_code, field_names = field.sorted_codes()
        if status_column:
            status_code, status_names = status.all_codes(), status.distinct
        else:
            status_code, status_names = np.zeros(len(values), dtype=np.intp), wanted
        order = np.lexsort((field_code, person_code, item_code))
        named = categorical_column if categorical else coded_column
        frame = pd.DataFrame(
            {
                "item_id": named([r[1] for r in items], item_code[order]),
                "annotator": named([r[1] for r in people], person_code[order]),
                "field": named(list(field_names), field_code[order]),
                "value": pd.Series([values[i] for i in order], dtype=object),
                "status": named(list(status_names), status_code[order]),
                "guideline_version": pd.Series(np.asarray(version)[order]),
                "updated_at": raw.coded_timestamps(updated.all_codes(), updated.distinct, order),
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

    def recover_imports(self) -> list[str]:
        """Take back the label imports of dead processes; one line per import taken back."""
        return Journal.recover(self)

    def data_version(self, project: str) -> str:
        """A cheap token that changes whenever submitted labels, results, adjudications,
        items or exclusions change. Drafts do not count: every figure cached on this token
        reads submitted labels only, and an annotator's every click saves a draft.

        A store that stays open (the app server) first takes back the label imports of
        processes killed since it opened, so no figure is ever cached on their rows."""
        self.recovered_imports += self.recover_imports()
        with self.read() as s:
            pid = self._project_row(s, project).id
            a = s.execute(
                select(func.count(), func.max(Annotation.updated_at)).where(
                    Annotation.project_id == pid, Annotation.status == "submitted"
                )
            ).one()
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
            return f"{pid}:{i}:{a[0]}:{a[1]}:{r[0]}:{r[1]}:{j[0]}:{j[1]}:{x[0]}:{x[1]}"

    def import_labels(
        self, project: str, rows: Sequence[Mapping[str, Any]], source: str = "import"
    ) -> ImportReport:
        """Upsert many already-validated labels, all or nothing.

        Each row has ``item_id``, ``annotator``, ``field``, ``value`` and ``status``.
        Every row is checked before anything is written: an unknown item, an empty
        annotator name, an unknown status or two rows giving the same label different
        values raise :class:`StoreError` naming the row, and nothing is imported. Created
        and changed labels get history rows; item progress follows the label status.
        Written with bulk Core statements (:mod:`annotation_store.label_import`): on
        PostgreSQL in one transaction; on SQLite up to ``label_stage.ATOMIC_LABELS``
        labels staged and then moved in one short transaction (:mod:`label_stage`),
        larger imports in short transactions, undone if one fails and, after a kill,
        at the next start (its journal), so label saves never wait long.
        """
        with self.read() as s:
            proj = self._project_row(s, project)
            pid, guideline_version = proj.id, proj.guideline_version
            items = dict(
                s.execute(select(Item.item_id, Item.id).where(Item.project_id == pid)).all()
            )
        checked = check_rows(rows, items)
        now = utcnow()
        if not self.is_sqlite:  # one transaction: a killed import leaves nothing behind
            with self.write() as s:
                people = self._import_people(s, checked.names, now)
                plan = plan_import(checked, people, existing_labels(s, pid, False))
                return write_at_once(s, pid, guideline_version, plan, source, now)
        taken_back = self.recover_imports()  # a killed import the running app has not seen yet
        if label_stage.fits(checked):  # one transaction: nobody sees a part of it
            report = self._import_staged(pid, guideline_version, checked, source, now)
            report.notes.extend(taken_back)
            return report
        journal = Journal.begin(self, pid, source, now)
        try:
            with self.write() as s:
                people = self._import_people(s, checked.names, now)
            try:
                with self.read() as s:
                    existing = existing_labels(s, pid, self.is_sqlite)
                plan = plan_import(checked, people, existing)
                del existing
            except BaseException:
                with self.write() as s:
                    undo_import(s, pid, source, now)
                raise
            report = write_chunked(self.write, pid, guideline_version, plan, source, now, True)
            report.notes.extend(taken_back)
            return report
        finally:
            journal.finish()

    def _import_staged(
        self, pid: int, guideline_version: int, checked: CheckedRows, source: str, now: datetime
    ) -> ImportReport:
        """SQLite, a small import: planned, staged in a temporary table of one connection
        (no write lock), then moved in by one write transaction (:mod:`label_stage`)."""
        from sqlalchemy.orm import Session

        map_models()
        with self.engine.connect() as conn:
            with Session(bind=conn) as s:
                known = dict(
                    s.execute(
                        select(Annotator.name, Annotator.id).where(
                            Annotator.name.in_(checked.names)
                        )
                    ).all()
                )
                existing = existing_labels(s, pid, True)
            conn.rollback()
            people = label_stage.placeholder_people(checked.names, known)
            plan = plan_import(checked, people, existing)
            del existing
            try:
                label_stage.stage(conn, plan, {v: k for k, v in people.items()})
                with self._write_lock(conn), Session(bind=conn) as s:
                    self._import_people(s, [n for n in checked.names if n not in known], now)
                    label_stage.write_staged(s, pid, guideline_version, plan, source, now)
            finally:
                label_stage.unstage(conn)
        return plan.report()

    def _import_people(self, s: Session, names: Sequence[str], now: datetime) -> dict[str, int]:
        """Annotator ids by name. Names new to the workbench become external raters (no
        login) until an admin turns one into an account with ``user add``; they are
        stamped ``now``, so undoing the import removes them too."""
        known = set(s.scalars(select(Annotator.name).where(Annotator.name.in_(names))))
        people: dict[str, int] = {}
        for name in names:
            who = self._annotator_row(s, name)
            if who.name not in known:
                who.external = True
                who.created_at = now
                s.flush()
            people[name] = who.id
        return people


def submit_check(t: LabelTarget) -> Callable[[str, Any], None]:
    """The full (non-draft) check every label must pass to be submitted."""
    kind = get_kind(t.kind)

    def check(field: str, value: Any) -> None:
        kind.human_field(field, t.settings).validate(value, t.item_fields)

    return check
