"""One measure's result on one variable: its long-form rows, and the JSON block entries
written from those rows.

A :class:`MeasureResult` keeps what the JSON needs of the declaration (keys, layout,
rank) beside the computed ``Stat`` (the declaration holds a function, and documents are
cached by pickling). The rows are the source: :func:`write_block` takes value, CI, n, p
and reason from them, and only the result's details (``extra``, the reasons of those
details) and the layout from the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agreement.measures import Measure
from agreement.results import Stat
from common.rows import MeasureRow

#: The subject of the rows among people.
PEOPLE = "people"


@dataclass(frozen=True)
class MeasureResult:
    """A measure's computed ``Stat`` (one per level when ``per_level``) with its JSON
    layout."""

    section: str
    key: str
    rank: int
    per_level: bool
    slots: tuple[tuple[str, str], ...]
    reason_slots: tuple[str, ...]
    levels: tuple[str | None, ...]
    stats: tuple[Stat, ...]

    @classmethod
    def of(cls, m: Measure, result: Stat | Mapping[str, Stat]) -> MeasureResult:
        """Measure ``m``'s result: a ``Stat``, or a level -> ``Stat`` map when per level."""
        if isinstance(result, Mapping):
            levels: tuple[str | None, ...] = tuple(result)
            stats = tuple(result.values())
        else:
            levels, stats = (None,), (result,)
        return cls(
            m.section,
            m.key,
            m.json_rank,
            m.per_level,
            m.json_slots(),
            m.reason_layout or ("value",),
            levels,
            stats,
        )

    def stat(self, level: str | None = None) -> Stat | None:
        """The result (of ``level`` when per level)."""
        return dict(zip(self.levels, self.stats, strict=True)).get(level)

    def by_level(self) -> dict[str, Stat]:
        """Level -> result of a per-level measure."""
        return {str(lv): s for lv, s in zip(self.levels, self.stats, strict=True)}

    def rows(self, subject: str, field: str) -> tuple[MeasureRow, ...]:
        """One row per level (one row when not per level)."""
        return tuple(
            MeasureRow(
                self.section,
                subject,
                field,
                self.key,
                level,
                s.value,
                (float(s.ci[0]), float(s.ci[1])) if s.ci else None,
                s.n,
                s.p,
                (s.reason or "undefined") if s.value is None else None,
            )
            for level, s in zip(self.levels, self.stats, strict=True)
        )

    @property
    def extra(self) -> dict[str, Any]:
        """The JSON details of the result (the first level's: per-level measures have
        none of their own)."""
        return dict(self.stats[0].extra or {}) if self.stats else {}

    @property
    def notes(self) -> dict[str, str]:
        """The reasons of the details."""
        return dict(self.stats[0].notes or {}) if self.stats else {}


def _ci(ci: tuple[float, float] | None) -> list[float] | None:
    return list(ci) if ci else None


def _slot_value(res: MeasureResult, slot: str, rows: tuple[MeasureRow, ...]) -> Any:
    if res.per_level:
        if slot == "value":
            return {r.level: r.value for r in rows}
        if slot == "ci":
            return {r.level: _ci(r.ci) for r in rows}
    first = rows[0] if rows else None
    if slot == "value":
        return first.value if first else None
    if slot == "ci":
        return _ci(first.ci) if first else None
    if slot == "n":
        return first.n if first else 0
    return first.p if first else None


def write_block(
    out: dict[str, Any],
    reasons: dict[str, str],
    res: MeasureResult,
    rows: tuple[MeasureRow, ...],
) -> None:
    """Write measure result ``res`` into JSON block ``out`` (and its ``reasons``) from
    its ``rows``, in the measure's key layout."""
    extra = res.extra
    for slot, key in res.slots:
        if slot != "extra":
            out[key] = _slot_value(res, slot, rows)
        elif key in extra:
            out[key] = extra.pop(key)
    out.update(extra)
    notes = res.notes
    for slot in res.reason_slots:
        if slot == "value":
            for r in rows:
                if r.value is None:
                    reasons[res.key if r.level is None else f"{res.key}.{r.level}"] = (
                        r.reason or "undefined"
                    )
            continue
        for k in [k for k in notes if k == slot or k.startswith(f"{slot}.")]:
            reasons[k] = notes.pop(k)
    reasons.update(notes)
