"""Data-quality alarms over the submitted labels: the patterns that sink crowd studies.

Pure functions over tidy frames, returning :class:`Alarm` records:

- ``identical_pair``: two annotators identical on (almost) every shared item of a field
  (one person under two names, or copied answers);
- ``straight_lining``: an annotator who gives one value nearly always while the others
  do not;
- ``independent``: an annotator whose labels agree with the leave-one-out majority of
  the others no better than chance (Cohen's kappa with a 95 % interval reaching 0);
- ``speeder``: an annotator whose median active time per item is a small share of the
  others' (only when the store measured active time).

Each alarm names its annotators, field, n and figure, and says it in one sentence.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import pandas as pd

from agreement.annotator_quality import same_label

#: Shared items two annotators need before their identity counts, and the share of them.
MIN_SHARED = 20
IDENTICAL_SHARE = 0.98
#: Labels an annotator needs before straight-lining or independence is judged.
MIN_LABELS = 20
#: Straight-lining: one value on this share of an annotator's labels, while the other
#: annotators give that value on at most ``OTHERS_SHARE`` of theirs.
ONE_VALUE_SHARE = 0.95
OTHERS_SHARE = 0.8
#: Independence: kappa against the others' majority below this, its interval reaching 0.
INDEPENDENT_KAPPA = 0.2
#: Fields with more distinct values than this are continuous: no kappa, no one value.
MAX_CATEGORIES = 20
#: Speeders: median active time at most this share of the median of the others' medians.
SPEEDER_SHARE = 0.25
MIN_TIMED_ITEMS = 10


@dataclass(frozen=True)
class Alarm:
    """One data-quality alarm."""

    kind: str  # identical_pair / straight_lining / independent / speeder
    annotators: tuple[str, ...]
    field: str | None  # None: about the annotator's work as a whole (speeders)
    n: int  # shared items, labels or timed items behind the figure
    figure: float
    figure_name: str
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**self.__dict__, "annotators": list(self.annotators)}


def data_quality_alarms(labels: pd.DataFrame, times: pd.DataFrame | None = None) -> list[Alarm]:
    """Every alarm over ``labels`` (item_id, annotator, field, value: submitted labels)
    and ``times`` (annotator, item_id, active_seconds), in a stable order."""
    out: list[Alarm] = []
    if not labels.empty:
        for name, rows in labels.groupby("field", sort=True):
            rows = rows.dropna(subset=["value"])
            out += identical_pairs(rows, str(name))
            if _categorical(rows):
                out += straight_liners(rows, str(name))
                out += independent_annotators(rows, str(name))
    if times is not None and not times.empty:
        out += speeders(times)
    return out


def _categorical(rows: pd.DataFrame) -> bool:
    values = {_key(v) for v in rows["value"]}
    return 1 < len(values) <= MAX_CATEGORIES


def _key(value: Any) -> Any:
    """A hashable form of a label (lists become tuples, objects sorted pairs; 1.0 and 1
    are one value): declared kinds' answers can be lists (spans) or objects (pairwise)."""
    if isinstance(value, list):
        return tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _key(v)) for k, v in value.items()))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _by_annotator(rows: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item, who, value in zip(rows["item_id"], rows["annotator"], rows["value"], strict=True):
        out.setdefault(str(who), {})[str(item)] = value
    return out


def identical_pairs(rows: pd.DataFrame, field: str) -> list[Alarm]:
    """Pairs identical on at least ``IDENTICAL_SHARE`` of ``MIN_SHARED`` or more items."""
    people = _by_annotator(rows)
    out = []
    for a, b in combinations(sorted(people), 2):
        shared = people[a].keys() & people[b].keys()
        if len(shared) < MIN_SHARED:
            continue
        same = sum(same_label(people[a][i], people[b][i]) for i in shared)
        share = same / len(shared)
        if share >= IDENTICAL_SHARE:
            out.append(
                Alarm(
                    "identical_pair",
                    (a, b),
                    field,
                    len(shared),
                    share,
                    "share identical",
                    f"{a} and {b} gave the same {field!r} label on {same} of {len(shared)} "
                    f"shared items ({share:.0%}): check that they are two people working "
                    "independently.",
                )
            )
    return out


def straight_liners(rows: pd.DataFrame, field: str) -> list[Alarm]:
    """Annotators who give one value nearly always, unlike the others."""
    out = []
    keys = rows["value"].map(_key)
    for who in sorted(rows["annotator"].astype(str).unique()):
        mine = keys[rows["annotator"].astype(str) == who]
        if len(mine) < MIN_LABELS:
            continue
        value, count = Counter(mine).most_common(1)[0]
        share = count / len(mine)
        theirs = keys[rows["annotator"].astype(str) != who]
        others = float((theirs == value).mean()) if len(theirs) else math.nan
        if share >= ONE_VALUE_SHARE and not others > OTHERS_SHARE:
            also = f", the others on {others:.0%} of theirs" if not math.isnan(others) else ""
            out.append(
                Alarm(
                    "straight_lining",
                    (who,),
                    field,
                    len(mine),
                    share,
                    "share of one value",
                    f"{who} gave {field!r} the value {value!r} on {count} of {len(mine)} "
                    f"items ({share:.0%}){also}: possible straight-lining.",
                )
            )
    return out


def independent_annotators(rows: pd.DataFrame, field: str) -> list[Alarm]:
    """Annotators whose labels agree with the others' majority no better than chance."""
    people = _by_annotator(rows)
    out = []
    for who in sorted(people):
        pairs = []
        for item, value in people[who].items():
            others = [p[item] for o, p in people.items() if o != who and item in p]
            top = Counter(_key(v) for v in others).most_common(2)
            if not top or (len(top) > 1 and top[0][1] == top[1][1]):
                continue  # no other label, or a tie among them
            pairs.append((_key(value), top[0][0]))
        if len(pairs) < MIN_LABELS:
            continue
        kappa, se = _cohen(pairs)
        low, high = kappa - 1.96 * se, kappa + 1.96 * se
        if math.isnan(kappa) or not (kappa < INDEPENDENT_KAPPA and low <= 0):
            continue
        out.append(
            Alarm(
                "independent",
                (who,),
                field,
                len(pairs),
                kappa,
                "kappa vs the others' majority",
                f"{who}'s {field!r} labels agree with the others' majority no better than "
                f"chance: Cohen's kappa {kappa:.2f} (95 % CI {low:.2f} to {high:.2f}) over "
                f"{len(pairs)} items.",
            )
        )
    return out


def _cohen(pairs: list[tuple[Any, Any]]) -> tuple[float, float]:
    """Cohen's kappa of the pairs and its large-sample standard error."""
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[v] * second.get(v, 0) for v in first) / (n * n)
    if expected >= 1:
        return math.nan, math.nan
    kappa = (observed - expected) / (1 - expected)
    se = math.sqrt(observed * (1 - observed) / n) / (1 - expected)
    return kappa, se


def speeders(times: pd.DataFrame) -> list[Alarm]:
    """Annotators much faster per item than the others (median active seconds)."""
    medians = {
        str(who): (float(g["active_seconds"].median()), len(g))
        for who, g in times.groupby("annotator", sort=True)
        if len(g) >= MIN_TIMED_ITEMS
    }
    out = []
    for who, (mine, n) in medians.items():
        others = [m for o, (m, _) in medians.items() if o != who]
        if not others:
            continue
        typical = float(pd.Series(others).median())
        if typical > 0 and mine <= SPEEDER_SHARE * typical:
            out.append(
                Alarm(
                    "speeder",
                    (who,),
                    None,
                    n,
                    mine,
                    "median active seconds per item",
                    f"{who} spent a median {mine:.1f} s per item over {n} items, "
                    f"{mine / typical:.0%} of the others' {typical:.1f} s: possible speeder.",
                )
            )
    return out


def alarm_lines(doc: dict[str, Any]) -> list[str]:
    """The document's alarm sentences (``alarms`` key), for every renderer."""
    return [str(a["sentence"]) for a in doc.get("alarms") or []]
