"""Custom LLM judges in the store: named judges and their immutable, numbered versions.

The store keeps what it is given: the definition is checked (template sandbox, output
spec) by ``evaluators.judges`` before it arrives here. An edit adds a version; nothing
is ever overwritten, so results signed with an old version keep their definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from annotation_store.models import Judge, JudgeVersion
from annotation_store.store_base import StoreBase
from annotation_store.store_projects import StoreError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@dataclass(frozen=True)
class JudgeRecord:
    """One version of a judge as stored."""

    name: str
    kind: str
    version: int
    definition: dict[str, Any]
    prompt_hash: str
    created_by: str | None
    created_at: datetime

    @property
    def evaluator(self) -> str:
        """The evaluator name its results carry (``judge:NAME``)."""
        return f"judge:{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON form: name, evaluator, version, kind, prompt hash, who, when, definition."""
        return {
            "name": self.name,
            "evaluator": self.evaluator,
            "version": self.version,
            "kind": self.kind,
            "prompt_hash": self.prompt_hash,
            "created_by": self.created_by,
            "created_at": self.created_at.isoformat(timespec="seconds"),
            "definition": self.definition,
        }


def _record(judge: Judge, row: JudgeVersion) -> JudgeRecord:
    return JudgeRecord(
        judge.name,
        judge.kind,
        row.version,
        dict(row.definition),
        row.prompt_hash,
        row.created_by,
        row.created_at,
    )


class JudgesMixin(StoreBase):
    """Judge definitions: save a version, read one, list them."""

    def save_judge_version(
        self,
        name: str,
        kind: str,
        definition: dict[str, Any],
        prompt_hash: str,
        *,
        created_by: str | None = None,
        new: bool | None = None,
    ) -> JudgeRecord:
        """Store ``definition`` as the judge's next version (1 for a new judge).

        ``new=True`` refuses an existing name (create), ``new=False`` a missing one
        (edit); the kind of an existing judge cannot change. Two saves at once both get
        a version: the one that loses the race on the version number tries again.
        """
        for _attempt in range(5):  # a lost race on a new judge's name, then its row lock
            try:
                return self._save_judge_version(
                    name, kind, definition, prompt_hash, created_by, new
                )
            except IntegrityError:
                continue
        raise StoreError(f"judge {name!r} is being saved by someone else; try again")

    def _save_judge_version(
        self,
        name: str,
        kind: str,
        definition: dict[str, Any],
        prompt_hash: str,
        created_by: str | None,
        new: bool | None,
    ) -> JudgeRecord:
        with self.write() as s:
            # The row lock numbers concurrent versions one after another (PostgreSQL;
            # SQLite's write lock already does).
            judge = s.scalar(select(Judge).where(Judge.name == name).with_for_update())
            if judge is None:
                if new is False:
                    raise StoreError(f"no judge named {name!r}")
                judge = Judge(name=name, kind=kind)
                s.add(judge)
                s.flush()
            elif new is True:
                raise StoreError(f"a judge named {name!r} exists; edit it to add a version")
            elif judge.kind != kind:
                raise StoreError(
                    f"judge {name!r} scores kind {judge.kind!r}; a new version cannot "
                    f"change it to {kind!r} (create a judge with another name)"
                )
            last = s.scalar(
                select(func.max(JudgeVersion.version)).where(JudgeVersion.judge_id == judge.id)
            )
            row = JudgeVersion(
                judge_id=judge.id,
                version=(last or 0) + 1,
                definition=dict(definition),
                prompt_hash=prompt_hash,
                created_by=created_by,
            )
            s.add(row)
            s.flush()
            return _record(judge, row)

    def judge(self, name: str, version: int | None = None) -> JudgeRecord:
        """A judge's version ``version`` (the latest when None); StoreError when missing."""
        with self.read() as s:
            judge = s.scalar(select(Judge).where(Judge.name == name))
            if judge is None:
                known = ", ".join(s.scalars(select(Judge.name).order_by(Judge.name))) or "none"
                raise StoreError(f"no judge named {name!r} (judges: {known})")
            query = select(JudgeVersion).where(JudgeVersion.judge_id == judge.id)
            if version is None:
                row = s.scalar(query.order_by(JudgeVersion.version.desc()).limit(1))
            else:
                row = s.scalar(query.where(JudgeVersion.version == version))
            if row is None:
                raise StoreError(f"judge {name!r} has no version {version}")
            return _record(judge, row)

    def judge_versions(self, name: str) -> list[JudgeRecord]:
        """Every version of one judge, oldest first."""
        with self.read() as s:
            judge = s.scalar(select(Judge).where(Judge.name == name))
            if judge is None:
                raise StoreError(f"no judge named {name!r}")
            rows = s.scalars(
                select(JudgeVersion)
                .where(JudgeVersion.judge_id == judge.id)
                .order_by(JudgeVersion.version)
            )
            return [_record(judge, r) for r in rows]

    def judges(self, project: str | None = None) -> list[JudgeRecord]:
        """The latest version of every judge (of the project's kind when one is named)."""
        with self.read() as s:
            kind = self._project_row(s, project).kind if project else None
            return _latest(s, kind)


def _latest(s: Session, kind: str | None) -> list[JudgeRecord]:
    newest = (
        select(JudgeVersion.judge_id, func.max(JudgeVersion.version).label("v"))
        .group_by(JudgeVersion.judge_id)
        .subquery()
    )
    query = (
        select(Judge, JudgeVersion)
        .join(newest, newest.c.judge_id == Judge.id)
        .join(
            JudgeVersion,
            (JudgeVersion.judge_id == Judge.id) & (JudgeVersion.version == newest.c.v),
        )
        .order_by(Judge.name)
    )
    if kind is not None:
        query = query.where(Judge.kind == kind)
    return [_record(j, v) for j, v in s.execute(query)]
