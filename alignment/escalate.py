"""Escalation of one judge version on one field: its confidence and agreement per item,
read from stored results, then the threshold of :mod:`alignment.escalation`.

Confidence sources (``--confidence``):

- ``samples`` (default): the share of the judge's samples (``details["samples"]``)
  giving its most common answer; without samples, the share of its repeated runs that
  do; an item with fewer than two samples or runs has no confidence.
- ``verbal``: the judge's stated P(yes) on a binary field, as max(p, 1 - p) (the stored
  ``probability``: the judge's own figure, or the share of its samples saying yes when it
  stated none).
- ``logprob``: no stored result keeps a token probability distribution (G-Eval keeps only
  its probability-weighted score), so this source says so.

Agreement with people: the judge's decision equals the people's majority (binary), its
label equals their majority label (categorical), or its score is within ``tolerance`` of
their mean (graded and derived scores).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from alignment.escalation import ALPHA, DELTA, fixed_sequence, guarantee_text
from alignment.inputs import AlignmentError, FieldInputs
from alignment.probes import sample_value
from alignment.scores import field_scores, relevant
from alignment.versions import Version

if TYPE_CHECKING:
    from annotation_store import Store

SOURCES = ("samples", "logprob", "verbal")
TOLERANCE = 0.5
NO_LOGPROBS = (
    "no stored result carries token log-probabilities (G-Eval keeps only its "
    "probability-weighted score): use --confidence samples"
)
CONFIDENCE_WORDS = {
    "samples": "share of the judge's samples (or repeated runs) giving its most common answer",
    "verbal": "the judge's stated P(yes), as max(p, 1 - p)",
    "logprob": "token log-probabilities",
}


def pick_version(versions: list[Version], label: str | None) -> Version:
    """The version labelled ``label``, else the newest plain (not swapped) one."""
    if label is None:
        plain = [v for v in versions if not v.swapped] or versions
        return max(plain, key=lambda v: max(v.run_ids))
    for v in versions:
        if v.label == label:
            return v
    raise AlignmentError(f"no version {label!r} (choose from {[v.label for v in versions]})")


def modal_share(values: list[Any]) -> float | None:
    """The share of values equal to the most common one (None below two values)."""
    if len(values) < 2:
        return None
    return Counter(values).most_common(1)[0][1] / len(values)


def _key(x: float, binary: bool) -> float:
    return float(x >= 0.5) if binary else round(x, 3)


def numeric_confidence(
    results: pd.DataFrame, field: str, excluded: set[str], source: str, binary: bool
) -> dict[str, float | None]:
    """Per item, the confidence from ``source`` (samples / verbal) on a numeric field."""
    ok = results[(results["status"] == "ok") & ~results["item_id"].isin(excluded)]
    samples: dict[str, list[float]] = {}
    runs: dict[str, list[float]] = {}
    verbal: dict[str, list[float]] = {}
    # ids as objects: iterating an Arrow string column converts each one separately
    ids = ok["item_id"].to_numpy(object)
    for item, scores, details in zip(ids, ok["scores"], ok["details"], strict=True):
        if isinstance(details.get("samples"), list):
            got = (sample_value(s, field) for s in details["samples"])
            samples.setdefault(item, []).extend(_key(x, binary) for x in got if x is not None)
        if isinstance(scores.get(field), int | float):
            runs.setdefault(item, []).append(_key(float(scores[field]), binary))
        p = details.get("probability")
        if isinstance(p, int | float) and not isinstance(p, bool):
            verbal.setdefault(item, []).append(float(p))
    if source == "verbal":
        return {i: max(np.mean(p), 1 - np.mean(p)) for i, p in verbal.items()}
    return {i: modal_share(samples.get(i) or v) for i, v in runs.items()}


def _numeric(
    store: Store,
    project: str,
    field: str | None,
    label: str | None,
    source: str,
    tol: float,
    inputs: FieldInputs | None = None,
) -> tuple[dict[str, Any], pd.DataFrame]:
    from alignment.inputs import load_field
    from alignment.scores import per_item

    if inputs is not None and field in (None, inputs.field):
        fi = inputs
    else:
        fi = load_field(store, project, field)
    versions = [
        v for v in fi.versions if v.probe is None and relevant(fi.results[v.signature], fi.field)
    ]
    v = pick_version(versions, label)
    excluded = set(v.excluded)
    results = fi.results[v.signature]
    means = per_item(field_scores(results, fi.field, excluded))
    codes = fi.space.codes(means.index)
    if fi.binary:
        people = fi.dense.majority[codes]
        agrees = np.where(np.isnan(people), np.nan, (means.to_numpy() >= 0.5) == (people >= 0.5))
        rule = "the judge's decision (score >= 0.5) equals the people's majority"
    else:
        people = fi.dense.mean[codes]
        agrees = np.where(np.isnan(people), np.nan, np.abs(means.to_numpy() - people) <= tol + 1e-9)
        rule = f"the judge's score is within {tol:g} of the people's mean"
    conf = numeric_confidence(results, fi.field, excluded, source, fi.binary)
    frame = pd.DataFrame(
        {
            "item_id": means.index.astype(object),
            "confidence": [conf.get(i) for i in means.index],
            "agrees": agrees,
        }
    )
    head = {"field": fi.field, "field_type": fi.field_type, "version": v.label, "rule": rule}
    return head, frame


def _categorical(
    store: Store, project: str, field: str | None, label: str | None, source: str
) -> tuple[dict[str, Any], pd.DataFrame] | None:
    from agreement.inputs import field_frame
    from alignment.categorical import (
        categorical_fields,
        human_majority,
        judge_labels,
        load_categorical,
    )

    inputs, versions, results = load_categorical(store, project)
    names = categorical_fields(inputs)
    if field is None:
        field = next(
            (
                n
                for n in names
                if any(judge_labels(r, n, set())["labels"] for r in results.values())
            ),
            None,
        )
    if field is None or field not in names:
        return None
    mine = [
        v
        for v in versions
        if v.probe is None and judge_labels(results[v.signature], field, set())["labels"]
    ]
    if not mine:
        return None
    v = pick_version(mine, label)
    got = judge_labels(results[v.signature], field, set(v.excluded))
    people = field_frame(inputs.annotations, field)
    majority = human_majority(people[~people["item_id"].isin(set(v.excluded))])
    ids = sorted(got["labels"])
    conf = got["confidence"] if source == "samples" else {}
    frame = pd.DataFrame(
        {
            "item_id": ids,
            "confidence": [conf.get(i) for i in ids],
            "agrees": [
                float(got["labels"][i] == majority[i]) if i in majority else np.nan for i in ids
            ],
        }
    )
    rule = "the judge's label equals the people's majority label"
    head = {"field": field, "field_type": "categorical", "version": v.label, "rule": rule}
    return head, frame


def escalation(
    store: Store,
    project: str,
    field: str | None = None,
    label: str | None = None,
    *,
    alpha: float = ALPHA,
    delta: float = DELTA,
    source: str = "samples",
    tolerance: float = TOLERANCE,
    inputs: FieldInputs | None = None,
) -> dict[str, Any]:
    """The escalation document of one version (what ``alignment --escalate --json``
    prints): threshold, coverage, the guarantee in words, realised agreement on the kept
    items with its interval, each threshold tested, and the items sent to people.
    ``inputs``: the field's inputs already loaded (``load_field``; read-only), used when
    they are of ``field``."""
    if source not in SOURCES:
        raise AlignmentError(f"unknown confidence source {source!r} (choose from {SOURCES})")
    try:
        head, frame = _numeric(store, project, field, label, source, tolerance, inputs)
    except AlignmentError:
        found = _categorical(store, project, field, label, source)
        if found is None:
            raise
        head, frame = found
    frame["confidence"] = pd.to_numeric(frame["confidence"], errors="coerce")
    reason = None
    if source == "logprob":
        reason = NO_LOGPROBS
    elif frame["confidence"].isna().all():
        reason = (
            "the judge's results carry no stated P(yes) (a binary judge's probability)"
            if source == "verbal"
            else "the judge gave one answer per item (no samples, no repeated runs): "
            "no confidence to threshold; run it with samples > 1"
        )
    if reason:
        frame["confidence"] = np.nan
    calib = frame[frame["agrees"].notna()]
    result = fixed_sequence(
        calib["confidence"].to_numpy(float), calib["agrees"].to_numpy(float) == 1, alpha, delta
    )
    if reason:
        result = type(result)(alpha, delta, None, result.n, 0, 0, (), reason)
    lam = result.threshold
    conf = frame["confidence"].to_numpy(float)
    sent = frame[np.isnan(conf) | (conf < lam - 1e-9)] if lam is not None else frame
    return {
        "project": project,
        **head,
        "confidence": {"source": source, "definition": CONFIDENCE_WORDS[source]},
        **result.to_dict(),
        "guarantee": guarantee_text(result),
        "n_judged": len(frame),
        "kept_judged": len(frame) - len(sent),
        "escalated": [
            {
                "item_id": str(r.item_id),
                "confidence": None if np.isnan(r.confidence) else float(r.confidence),
                "people": not np.isnan(r.agrees),
            }
            for r in sent.itertuples()
        ],
    }
