"""Custom LLM judges in the store: named judges and their immutable, numbered versions.

The store keeps what it is given: the definition is checked (template sandbox, output
spec) by ``evaluators.judges`` before it arrives here. An edit adds a version; nothing
is ever overwritten, so results signed with an old version keep their definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotation_store.models import Judge, JudgeVersion
from annotation_store.store_base import StoreBase
from annotation_store.store_projects import StoreError
from annotation_store.store_versions import Versioned


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


JUDGES = Versioned(Judge, JudgeVersion, "judge_id", "judge", "judge", "judges", _record)


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

        def same_kind(judge: Judge, made: bool) -> None:
            if not made and judge.kind != kind:
                raise StoreError(
                    f"judge {name!r} scores kind {judge.kind!r}; a new version cannot "
                    f"change it to {kind!r} (create a judge with another name)"
                )

        columns = {
            "definition": dict(definition),
            "prompt_hash": prompt_hash,
            "created_by": created_by,
        }
        return JUDGES.save(self, name, new, lambda: Judge(name=name, kind=kind), columns, same_kind)

    def judge(self, name: str, version: int | None = None) -> JudgeRecord:
        """A judge's version ``version`` (the latest when None); StoreError when missing."""
        return JUDGES.one(self, name, version)

    def judge_versions(self, name: str) -> list[JudgeRecord]:
        """Every version of one judge, oldest first."""
        return JUDGES.history(self, name)

    def judges(self, project: str | None = None) -> list[JudgeRecord]:
        """The latest version of every judge (of the project's kind when one is named)."""
        with self.read() as s:
            kind = self._project_row(s, project).kind if project else None
            return JUDGES.newest(s, None if kind is None else Judge.kind == kind)
