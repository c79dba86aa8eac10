"""Data-quality alarms over the submitted labels: the patterns that sink crowd studies.

Pure functions over tidy frames, returning :class:`Alarm` records:

- ``identical_pair``: two annotators identical on (almost) every shared item of a field
  (one person under two names, or copied answers);
- ``straight_lining``: an annotator who gives one value nearly always while the others
  do not;
- ``independent``: an annotator whose labels agree with the leave-one-out majority of
  the others no better than chance (Cohen's kappa with a 95 % interval reaching 0);
- ``speeder``: an annotator whose median time per item is a small share of the others'
  (the active time the browser measured; without it, the time on task a platform
  reported, e.g. MTurk's ``WorkTimeInSeconds``); the sentence names the time used.

:func:`alarm_summary` counts them in one line per kind ("54 possible speeders, 113 at
chance level, 2 identical pairs").

Each alarm names its annotators, field, n and figure, and says it in one sentence.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
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
#: The time the speeder alarm reads when the browser measured it.
BROWSER_TIME = "active time measured in the browser"
#: How the summary counts each kind (one, many), in the order it lists them.
KIND_WORDS = {
    "speeder": ("possible speeder", "possible speeders"),
    "independent": ("at chance level", "at chance level"),
    "identical_pair": ("identical pair", "identical pairs"),
    "straight_lining": ("straight-liner", "straight-liners"),
}


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


def data_quality_alarms(
    labels: pd.DataFrame, times: pd.DataFrame | None = None, time_source: str | None = None
) -> list[Alarm]:
    """Every alarm over ``labels`` (item_id, annotator, field, value: submitted labels)
    and ``times`` (annotator, item_id, active_seconds: seconds per item, of the kind
    ``time_source`` names; None: active time measured in the browser), in a stable
    order."""
    out: list[Alarm] = []
    if not labels.empty:
        for name, rows in labels.groupby("field", sort=True):
            coded = CodedField.of(rows.dropna(subset=["value"]))
            out += identical_pairs(coded, str(name))
            if 1 < len(coded.keys) <= MAX_CATEGORIES:
                out += straight_liners(coded, str(name))
                out += independent_annotators(coded, str(name))
    if times is not None and not times.empty:
        out += speeders(times, time_source or BROWSER_TIME)
    return out


def alarm_counts(alarms: list[dict[str, Any]]) -> dict[str, int]:
    """Alarms per kind, in the summary's order (kinds without an alarm left out)."""
    counts = Counter(str(a["kind"]) for a in alarms)
    order = [*KIND_WORDS, *sorted(set(counts) - set(KIND_WORDS))]
    return {kind: counts[kind] for kind in order if counts[kind]}


def alarm_block(alarms: list[dict[str, Any]]) -> dict[str, Any]:
    """The document's summary entries of its alarms: counts per kind and the line."""
    return {"alarm_counts": alarm_counts(alarms), "alarm_summary": alarm_summary(alarms)}


def alarm_summary(alarms: list[dict[str, Any]]) -> str:
    """The alarms in one line, a count per kind ("" when there is none)."""
    parts = []
    for kind, n in alarm_counts(alarms).items():
        one, many = KIND_WORDS.get(kind, (kind.replace("_", " "), kind.replace("_", " ")))
        parts.append(f"{n} {one if n == 1 else many}")
    return ", ".join(parts)


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


#: Value columns whose labels compare by plain equality: there :func:`same_label` is
#: equality of the keys, and identical pairs are counted on codes.
_PLAIN = frozenset({"integer", "floating", "mixed-integer-float", "string"})


@dataclass(frozen=True)
class CodedField:
    """One field's labels as integer codes, so the alarms count with numpy.

    ``item``, ``who`` and ``code`` are per label row; ``who`` indexes ``annotators``
    (sorted names), ``code`` indexes ``keys`` (distinct :func:`_key` forms). ``matrix``
    is (items, annotators) with each annotator's last label per item (-1: none), as a
    dict keyed by item would keep it. ``values`` keeps the raw labels for the pairwise
    comparison of answers that are not plain numbers or strings.
    """

    annotators: list[str]
    keys: list[Any]
    item: np.ndarray
    who: np.ndarray
    code: np.ndarray
    matrix: np.ndarray
    values: np.ndarray
    plain: bool

    @classmethod
    def of(cls, rows: pd.DataFrame) -> CodedField:
        """Code the rows of one field (values not missing)."""
        values = rows["value"].to_numpy(dtype=object)
        plain = pd.api.types.infer_dtype(values, skipna=False) in _PLAIN
        # numbers factorise as Python compares them (1 == 1.0), like their keys
        if not plain:  # one object per label: tuples stay whole
            keyed = np.fromiter((_key(v) for v in values), dtype=object, count=len(values))
        code, uniques = pd.factorize(values if plain else keyed)
        keys = [_key(v) for v in uniques] if plain else list(uniques)
        item, _ = pd.factorize(rows["item_id"].astype(str).to_numpy(dtype=object))
        who, annotators = pd.factorize(
            rows["annotator"].astype(str).to_numpy(dtype=object), sort=True
        )
        matrix = np.full((int(item.max(initial=-1)) + 1, len(annotators)), -1, dtype=np.intp)
        # a repeated (item, annotator) keeps its last row, as a dict keyed by item would
        cell = item * len(annotators) + who
        _, from_end = np.unique(cell[::-1], return_index=True)
        last = len(cell) - 1 - from_end
        matrix[item[last], who[last]] = code[last]
        return cls(list(annotators), keys, item, who, code, matrix, values, plain)

    def shown_value(self, j: int) -> Any:
        """Annotator ``j``'s most common label as the sentences have always shown it: the
        first of its labels, keyed over the whole column (pandas types the keys, so 1 reads
        1.0 in a column that also holds 2.5). Only computed for an alarm that is raised."""
        keys = pd.Series(self.values, dtype=object).map(_key)
        return Counter(keys[self.who == j]).most_common(1)[0][0]

    def values_of(self, j: int) -> dict[int, Any]:
        """Item -> the raw label of annotator ``j`` (the last one per item)."""
        mine = self.who == j
        return dict(zip(self.item[mine].tolist(), self.values[mine].tolist(), strict=True))


def identical_pairs(coded: CodedField, field: str) -> list[Alarm]:
    """Pairs identical on at least ``IDENTICAL_SHARE`` of ``MIN_SHARED`` or more items."""
    m = coded.matrix
    out = []
    rated = (m >= 0).astype(np.float64)
    shared = np.rint(rated.T @ rated)  # items each pair shares (BLAS, exact counts)
    # only the pairs sharing enough items, in the order of combinations()
    for i, j in zip(*np.nonzero(np.triu(shared >= MIN_SHARED, 1)), strict=True):
        i, j = int(i), int(j)
        both = (m[:, i] >= 0) & (m[:, j] >= 0)
        n = int(both.sum())
        if coded.plain:
            same = int((m[both, i] == m[both, j]).sum())
        else:  # lists and objects: compared as values, as the annotation views do
            first, second = coded.values_of(i), coded.values_of(j)
            same = sum(same_label(first[k], second[k]) for k in np.flatnonzero(both).tolist())
        share = same / n
        if share >= IDENTICAL_SHARE:
            a, b = coded.annotators[i], coded.annotators[j]
            out.append(
                Alarm(
                    "identical_pair",
                    (a, b),
                    field,
                    n,
                    share,
                    "share identical",
                    f"{a} and {b} gave the same {field!r} label on {same} of {n} "
                    f"shared items ({share:.0%}): check that they are two people working "
                    "independently.",
                )
            )
    return out


def straight_liners(coded: CodedField, field: str) -> list[Alarm]:
    """Annotators who give one value nearly always, unlike the others."""
    k = len(coded.keys)
    counts = np.bincount(coded.who * k + coded.code, minlength=len(coded.annotators) * k)
    counts = counts.reshape(len(coded.annotators), k)
    per_value = counts.sum(axis=0)
    out = []
    for j, who in enumerate(coded.annotators):
        n_mine = int(counts[j].sum())
        if n_mine < MIN_LABELS:
            continue
        top = int(counts[j].argmax())  # a tie at the top is far below the share below
        count = int(counts[j, top])
        share = count / n_mine
        n_theirs = len(coded.code) - n_mine
        others = int(per_value[top] - count) / n_theirs if n_theirs else math.nan
        if share >= ONE_VALUE_SHARE and not others > OTHERS_SHARE:
            also = f", the others on {others:.0%} of theirs" if not math.isnan(others) else ""
            out.append(
                Alarm(
                    "straight_lining",
                    (who,),
                    field,
                    n_mine,
                    share,
                    "share of one value",
                    f"{who} gave {field!r} the value {coded.shown_value(j)!r} on {count} of "
                    f"{n_mine} items ({share:.0%}){also}: possible straight-lining.",
                )
            )
    return out


def independent_annotators(coded: CodedField, field: str) -> list[Alarm]:
    """Annotators whose labels agree with the others' majority no better than chance."""
    m = coded.matrix
    k = len(coded.keys)
    n_items = m.shape[0]
    rated = m >= 0
    counts = np.zeros((n_items, k), dtype=np.intp)  # labels per item and value
    np.add.at(counts, (np.nonzero(rated)[0], m[rated]), 1)
    out = []
    for j, who in enumerate(coded.annotators):
        mine = rated[:, j]
        own = m[mine, j]
        others = counts[mine]
        others[np.arange(len(own)), own] -= 1
        top = others.max(axis=1)
        majority = others.argmax(axis=1)
        # no other label, or a tie among them: no majority to compare with
        has = (top > 0) & ((others == top[:, None]).sum(axis=1) == 1)
        if int(has.sum()) < MIN_LABELS:
            continue
        kappa, se = _cohen(own[has], majority[has], k)
        low, high = kappa - 1.96 * se, kappa + 1.96 * se
        if math.isnan(kappa) or not (kappa < INDEPENDENT_KAPPA and low <= 0):
            continue
        n = int(has.sum())
        out.append(
            Alarm(
                "independent",
                (who,),
                field,
                n,
                kappa,
                "kappa vs the others' majority",
                f"{who}'s {field!r} labels agree with the others' majority no better than "
                f"chance: Cohen's kappa {kappa:.2f} (95 % CI {low:.2f} to {high:.2f}) over "
                f"{n} items.",
            )
        )
    return out


def _cohen(a: np.ndarray, b: np.ndarray, k: int) -> tuple[float, float]:
    """Cohen's kappa of the paired codes ``a``, ``b`` (0..k-1) and its large-sample
    standard error (integer counts, so the same floats however they are summed)."""
    n = len(a)
    observed = int((a == b).sum()) / n
    first, second = np.bincount(a, minlength=k), np.bincount(b, minlength=k)
    expected = int((first * second).sum()) / (n * n)
    if expected >= 1:
        return math.nan, math.nan
    kappa = (observed - expected) / (1 - expected)
    se = math.sqrt(observed * (1 - observed) / n) / (1 - expected)
    return kappa, se


def speeders(times: pd.DataFrame, source: str = BROWSER_TIME) -> list[Alarm]:
    """Annotators much faster per item than the others (median seconds per item in
    ``active_seconds``, the time ``source`` names)."""
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
                    "median active seconds per item"
                    if source == BROWSER_TIME
                    else "median platform seconds per item",
                    f"{who} spent a median {mine:.1f} s per item ({source}) over {n} items, "
                    f"{mine / typical:.0%} of the others' {typical:.1f} s: possible speeder.",
                )
            )
    return out


def alarm_lines(doc: dict[str, Any]) -> list[str]:
    """The document's alarm sentences (``alarms`` key), for every renderer."""
    return [str(a["sentence"]) for a in doc.get("alarms") or []]
