"""Drift alarm figures: anchors chosen once, then a judge's answers on them now against
its stored answers and against the people.

- Anchors: ``n`` items drawn with a seed from those the judge has stored answers for,
  stratified by the people's majority answer when the anchors' candidates have two or
  more such strata (proportional allocation, largest remainder, each stratum at least
  one item while ``n`` allows), else a plain random draw.
- Stability: the share of anchors whose answer now equals the stored one, and Cohen's
  kappa between the two (answers as nominal categories; a failed reply is a category of
  its own). Kappa is undefined when the expected agreement is 1 (one category only).
- People: Cohen's kappa of the stored answers and of today's answers with the people's
  majority answer, on the same anchors (those with a majority and both answers); the
  drop is the first minus the second.

The bar: ``min_kappa`` (stability kappa at least K; default 0.8) or ``max_drop`` (the
people's kappa falls by at most D). When the kappa a bar needs is undefined the matching
agreement share stands in, and the verdict says so.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MIN_KAPPA = 0.8
ANCHORS = 20
FAILED = "failed"
#: Moved anchors named in a finding line.
SHOWN = 20


def answer_key(value: Any) -> Any:
    """A comparable form of an answer: numbers (and booleans) as rounded floats, lists
    and dicts as canonical JSON, anything else as text."""
    if isinstance(value, bool | int | float | np.integer | np.floating):
        return round(float(value), 6)
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return str(value)


def shown(value: Any) -> str:
    """An answer as printed (1.0 as 1)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def majority(values: Sequence[Any]) -> Any | None:
    """The most common answer, None on a tie or without answers."""
    top = Counter(answer_key(v) for v in values).most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def choose_anchors(
    candidates: Sequence[str], strata: Mapping[str, Any], n: int, seed: int
) -> dict[str, str | None]:
    """``n`` anchors (item_id -> stratum) from ``candidates`` in their order; stratified
    by ``strata`` (item -> the people's majority) when the candidates hold two or more."""
    rng = np.random.default_rng(seed)
    groups: dict[str, list[str]] = {}
    for i in candidates:
        if strata.get(i) is not None:
            groups.setdefault(shown(strata[i]), []).append(i)
    n = min(n, len(candidates))
    if len(groups) < 2:
        picked = set(rng.choice(len(candidates), n, replace=False).tolist()) if n else set()
        return {i: None for k, i in enumerate(candidates) if k in picked}
    names = sorted(groups)
    sizes = np.array([len(groups[g]) for g in names], float)
    n = min(n, int(sizes.sum()))
    quota = n * sizes / sizes.sum()
    take = np.floor(quota).astype(int)
    if n >= len(names):
        take = np.maximum(take, 1)
    order = np.argsort(-(quota - np.floor(quota)), kind="stable")
    for k in order:
        if take.sum() >= n:
            break
        if take[k] < sizes[k]:
            take[k] += 1
    while take.sum() > n:  # the minimum of one each overshot: trim the largest
        take[int(np.argmax(take))] -= 1
    chosen: dict[str, str] = {}
    for g, t in zip(names, take, strict=True):
        members = groups[g]
        for k in sorted(rng.choice(len(members), int(t), replace=False).tolist()):
            chosen[members[k]] = g
    return {i: chosen[i] for i in candidates if i in chosen}


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's kappa of two raters' nominal answers (None when undefined)."""
    if not a:
        return None
    cats = sorted({*a, *b}, key=str)
    pa = np.array([sum(x == c for x in a) for c in cats], float) / len(a)
    pb = np.array([sum(x == c for x in b) for c in cats], float) / len(b)
    po = float(np.mean([x == y for x, y in zip(a, b, strict=True)]))
    pe = float(pa @ pb)
    return None if pe >= 1 - 1e-12 else (po - pe) / (1 - pe)


@dataclass(frozen=True)
class DriftFigures:
    """A check's figures, each with its n (see the module docstring)."""

    n_anchors: int
    n_compared: int
    agreement: float | None
    kappa: float | None
    moved: list[tuple[str, Any, Any]]
    failed: list[str]
    no_stored: list[str]
    people_n: int
    people_kappa_then: float | None
    people_kappa_now: float | None
    people_agreement_then: float | None
    people_agreement_now: float | None
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def people_drop(self) -> float | None:
        """How far the kappa with people fell (positive: worse now)."""
        if self.people_kappa_then is None or self.people_kappa_now is None:
            return None
        return self.people_kappa_then - self.people_kappa_now

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what the history stores)."""
        return {
            "n_anchors": self.n_anchors,
            "n_compared": self.n_compared,
            "agreement": self.agreement,
            "kappa": self.kappa,
            "moved": [{"item_id": i, "before": b, "now": a} for i, b, a in self.moved],
            "failed": self.failed,
            "no_stored": self.no_stored,
            "people": {
                "n": self.people_n,
                "kappa_then": self.people_kappa_then,
                "kappa_now": self.people_kappa_now,
                "drop": self.people_drop,
                "agreement_then": self.people_agreement_then,
                "agreement_now": self.people_agreement_now,
            },
            "reasons": self.reasons,
        }


def compare(
    anchors: Sequence[str],
    stored: Mapping[str, Any],
    now: Mapping[str, Any],
    people: Mapping[str, Any],
) -> DriftFigures:
    """Today's answers (``now``: item -> answer, absent or None when the reply failed)
    against the stored ones and against the people's majority, on the anchors."""
    failed = [i for i in anchors if now.get(i) is None]
    no_stored = [i for i in anchors if i not in stored]
    both = [i for i in anchors if i in stored]
    before = [answer_key(stored[i]) for i in both]
    after = [FAILED if now.get(i) is None else answer_key(now[i]) for i in both]
    moved = [(i, b, a) for i, b, a in zip(both, before, after, strict=True) if b != a]
    reasons: dict[str, str] = {}
    agreement = 1 - len(moved) / len(both) if both else None
    kappa = cohen_kappa(before, after)
    if not both:
        reasons["stability"] = "no anchor has a stored answer of this judge version and model"
    elif kappa is None:
        reasons["stability"] = "kappa undefined: every answer, then and now, is the same"
    rated = [i for i in both if people.get(i) is not None and now.get(i) is not None]
    crowd = [answer_key(people[i]) for i in rated]
    then = [answer_key(stored[i]) for i in rated]
    today = [answer_key(now[i]) for i in rated]
    if not rated:
        reasons["people"] = "no anchor has a people's majority (and both answers)"
    return DriftFigures(
        n_anchors=len(anchors),
        n_compared=len(both),
        agreement=agreement,
        kappa=kappa,
        moved=moved,
        failed=failed,
        no_stored=no_stored,
        people_n=len(rated),
        people_kappa_then=cohen_kappa(then, crowd),
        people_kappa_now=cohen_kappa(today, crowd),
        people_agreement_then=_share(then, crowd),
        people_agreement_now=_share(today, crowd),
        reasons=reasons,
    )


def _share(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    return float(np.mean([x == y for x, y in zip(a, b, strict=True)])) if a else None


@dataclass(frozen=True)
class Verdict:
    """Whether the check passed, the bar in words, and why."""

    passed: bool
    bar: str
    why: str


def verdict(f: DriftFigures, min_kappa: float | None, max_drop: float | None) -> Verdict:
    """The check against one bar: ``max_drop`` when given, else ``min_kappa`` (0.8)."""
    if max_drop is not None:
        bar = f"max-drop {max_drop:g}"
        drop, name = f.people_drop, "the kappa with the people"
        if drop is None and f.people_agreement_then is not None:
            drop = f.people_agreement_then - (f.people_agreement_now or 0.0)
            name = "the agreement with the people (kappa undefined)"
        if drop is None:
            return Verdict(False, bar, f.reasons.get("people", "no figure to compare"))
        ok = drop <= max_drop + 1e-12
        return Verdict(ok, bar, f"{name} fell by {drop:.3f} ({'<=' if ok else '>'} {max_drop:g})")
    k = MIN_KAPPA if min_kappa is None else min_kappa
    bar = f"min-kappa {k:g}"
    value, name = f.kappa, "kappa with the stored answers"
    if value is None and f.agreement is not None:
        value, name = f.agreement, "agreement with the stored answers (kappa undefined)"
    if value is None:
        return Verdict(False, bar, f.reasons.get("stability", "no figure to compare"))
    ok = value >= k - 1e-12
    return Verdict(ok, bar, f"{name} {value:.3f} {'>=' if ok else '<'} {k:g}")


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def finding_lines(f: DriftFigures, v: Verdict) -> list[str]:
    """One line per finding: stability, what moved, failures, the people, the verdict."""
    lines = [
        f"stored answers: agreement {_fmt(f.agreement)}, kappa {_fmt(f.kappa)} "
        f"(n {f.n_compared} anchors)"
        + (f": {f.reasons['stability']}" if "stability" in f.reasons else "")
    ]
    if f.moved:
        names = ", ".join(f"{i} {shown(b)} -> {shown(a)}" for i, b, a in f.moved[:SHOWN])
        more = f" and {len(f.moved) - SHOWN} more" if len(f.moved) > SHOWN else ""
        lines.append(f"moved: {len(f.moved)} of {f.n_compared} anchors: {names}{more}")
    if f.failed:
        lines.append(f"failed now: {len(f.failed)} anchors: {', '.join(f.failed[:SHOWN])}")
    if f.no_stored:
        lines.append(
            f"no stored answer (compared with nothing): {len(f.no_stored)} anchors: "
            + ", ".join(f.no_stored[:SHOWN])
        )
    if f.people_n:
        drop = f.people_drop
        lines.append(
            f"people: kappa with their majority {_fmt(f.people_kappa_then)} before, "
            f"{_fmt(f.people_kappa_now)} now"
            + (f" (drop {drop:.3f})" if drop is not None else "")
            + f"; agreement {_fmt(f.people_agreement_then)} before, "
            f"{_fmt(f.people_agreement_now)} now (n {f.people_n} anchors)"
        )
    else:
        lines.append(f"people: {f.reasons.get('people')}")
    lines.append(f"{'PASS' if v.passed else 'FAIL'} ({v.bar}): {v.why}")
    return lines


HISTORY_COLUMNS = [
    "judge", "version", "model", "checked", "field", "anchors", "agreement", "kappa",
    "people κ before", "people κ now", "moved", "bar", "verdict",
]  # fmt: skip


def history_frame(records: Sequence[Any]) -> Any:
    """The check history (stored ``CheckRecord`` s) as a table: one row per check, grouped
    by judge, version and model, newest first within each."""
    import pandas as pd

    rows = []
    for r in records:
        f, people = r.figures, r.figures.get("people") or {}
        rows.append(
            {
                "judge": r.evaluator,
                "version": r.version,
                "model": r.model or "-",
                "checked": r.created_at,
                "field": r.field,
                "anchors": r.n_anchors,
                "agreement": f.get("agreement"),
                "kappa": f.get("kappa"),
                "people κ before": people.get("kappa_then"),
                "people κ now": people.get("kappa_now"),
                "moved": len(f.get("moved") or []),
                "bar": r.bar,
                "verdict": "pass" if r.passed else "FAIL",
            }
        )
    frame = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    if frame.empty:
        return frame
    frame = frame.sort_values("checked", ascending=False, kind="stable")
    return frame.sort_values(["judge", "version", "model"], kind="stable").reset_index(drop=True)
