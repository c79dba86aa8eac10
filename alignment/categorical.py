"""The alignment table of a categorical field: label judges against the people.

A ``type = "label"`` judge stores its label in ``details["answer"]`` (and the label's
position as the score). Each version's label per item (the most frequent over its runs,
ties to the first in alphabetical order) is compared with the people's majority label
(ties: no reference): accuracy, Cohen's kappa with a bootstrap CI, the confusion matrix,
the alternative annotator test in its accuracy form (labels coded as numbers, equal or
not), probe runs (option order, swap) and, when the judge sampled several replies, the
calibration of its confidence (the share of samples that gave its answer) against
correctness. Rows have the keys of :mod:`alignment.table`'s rows that apply.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agreement.alt_test import alt_test
from agreement.label_judge import compare_labels, confidence_calibration
from alignment.bias_scan import bias_scan, item_columns
from alignment.human_ceiling import human_ceiling
from alignment.probes import changed_share, options_partner, swap_partner
from alignment.row_head import row_head
from alignment.versions import Version, load_versions, version_results
from kinds import FieldType

if TYPE_CHECKING:
    from annotation_store import Store

NOT_HERE = "not measured on a categorical field"
INJECTION_NOT_HERE = "the injection probe runs on score judges, not on a label judge"
#: What the bias scan of a label judge scans.
DISAGREEMENT = "disagreement with the people's majority label (1 differs, 0 agrees)"


def categorical_fields(inputs: Any) -> list[str]:
    """The kind's categorical human fields."""
    return [
        f.name for f in inputs.kind.human_fields(inputs.settings) if f.type is FieldType.CATEGORICAL
    ]


def _most_frequent(values: list[str]) -> str:
    counts = Counter(values)
    best = max(counts.values())
    return sorted(v for v in counts if counts[v] == best)[0]


def judge_labels(results: pd.DataFrame, field: str, excluded: set[str]) -> dict[str, Any]:
    """Per item: the version's label (most frequent over runs), and the confidence in it
    (the share of samples that gave it) when the results have samples."""
    ok = results[(results["status"] == "ok") & ~results["item_id"].isin(excluded)]
    labels: dict[str, list[str]] = {}
    samples: dict[str, list[str]] = {}
    for item, scores, details in zip(ok["item_id"], ok["scores"], ok["details"], strict=True):
        answer = details.get("answer")
        if scores.get(field) is None or not isinstance(answer, str):
            continue
        labels.setdefault(item, []).append(answer)
        if isinstance(details.get("samples"), list):
            samples.setdefault(item, []).extend(str(s) for s in details["samples"])
    out = {i: _most_frequent(v) for i, v in labels.items()}
    conf = {i: float(np.mean([s == out[i] for s in samples[i]])) for i in samples if i in out}
    return {"labels": out, "confidence": conf}


def human_majority(labels: pd.DataFrame) -> dict[str, str]:
    """Per item, the people's majority label (an item with a tie has none)."""
    out = {}
    for item, g in labels.groupby("item_id", sort=True):
        counts = Counter(str(v) for v in g["value"])
        best = max(counts.values())
        top = [v for v in counts if counts[v] == best]
        if len(top) == 1:
            out[str(item)] = top[0]
    return out


def _alt_test(judge: dict[str, str], labels: pd.DataFrame, cats: list[str], eps: float) -> Any:
    code = {c: float(k) for k, c in enumerate(cats)}
    coded = labels.assign(value=[code.get(str(v), np.nan) for v in labels["value"]])
    series = pd.Series({i: code[v] for i, v in judge.items() if v in code}, dtype=float)
    return alt_test(series, coded, discrete=True, epsilon=eps).to_dict()


def _row(
    v: Version,
    results: pd.DataFrame,
    field: str,
    labels: pd.DataFrame,
    cats: list[str],
    *,
    n_resamples: int,
    seed: int,
    epsilon: float,
) -> dict[str, Any]:
    """One version's row on the categorical field (``_scores``: the label positions per
    item, for pairing with probe runs; popped by the caller)."""

    excluded = set(v.excluded)
    kept = results[~results["item_id"].isin(excluded)]
    mine = judge_labels(results, field, excluded)
    people = labels[~labels["item_id"].isin(excluded)]
    majority = human_majority(people)
    cmp = compare_labels(mine["labels"], majority, cats, n_resamples=n_resamples, seed=seed)
    conf = {i: c for i, c in mine["confidence"].items() if i in majority}
    calibration = (
        confidence_calibration(
            np.array(list(conf.values())),
            np.array([mine["labels"][i] == majority[i] for i in conf]),
        )
        if conf
        else {"n": 0, "reason": "the judge gave one reply per item: no confidence to calibrate"}
    )
    scores = pd.Series(
        {i: float(cats.index(x)) for i, x in mine["labels"].items() if x in cats}, dtype=float
    )
    # a label has no signed error: the scan's residual is 1 where the judge's label
    # differs from the people's majority, 0 where it agrees
    disagree = pd.Series(
        {i: float(x != majority[i]) for i, x in mine["labels"].items() if i in majority},
        dtype=float,
    )
    return {
        **row_head(v, kept),
        "n": cmp["n"],
        "headline": {
            "name": "kappa",
            "value": cmp.get("kappa"),
            "ci": cmp.get("ci"),
            "n": cmp["n"],
            "reason": cmp.get("reason") or cmp.get("kappa_reason"),
        },
        "accuracy": cmp.get("accuracy"),
        "confusion": cmp.get("confusion"),
        "correlations": {},
        "binary": None,
        "reasons": {},
        "probes": {
            "self_consistency": {"n": 0, "reason": NOT_HERE},
            "calibration": calibration,
            "length_bias": {"n": 0, "reason": NOT_HERE},
            "ego_bias": {"reason": NOT_HERE},
            "injection": {"families": [], "reason": INJECTION_NOT_HERE},
            "alt_test": _alt_test(mine["labels"], people, cats, epsilon),
            "human_ceiling": human_ceiling(
                pd.Series(mine["labels"], dtype=object),
                people.assign(value=people["value"].astype(str)),
                ordered=False,
                weights=None,
            ),
        },
        "_scores": scores,
        "_disagree": disagree,
    }


@dataclass
class _Pairing:
    """The attributes of FieldInputs that pairing a version with its probe runs reads."""

    results: dict[str, pd.DataFrame]
    field: str
    versions: list[Version]
    binary: bool = False


def load_categorical(
    store: Store, project: str
) -> tuple[Any, list[Version], dict[str, pd.DataFrame]]:
    """The project's inputs, its versions (leakage guard applied) and their results."""
    from study_inputs.load import load_inputs

    inputs = load_inputs(store, project)
    versions = load_versions(store, project)
    leaks = {e["signature"]: e["reasons"] for e in inputs.meta.get("excluded") or []}
    results = {}
    for v in versions:
        v.excluded = dict(leaks.get(v.signature) or {})
        results[v.signature] = version_results(store, v)
    return inputs, versions, results


def categorical_table(
    store: Store,
    project: str,
    field: str | None,
    *,
    n_resamples: int,
    seed: int,
    epsilon: float,
) -> dict[str, Any] | None:
    """The alignment document of a categorical field (None when the kind has none, or
    no label judge answered ``field``)."""
    from agreement.inputs import field_frame

    inputs, versions, results = load_categorical(store, project)
    names = categorical_fields(inputs)
    if field is not None and field not in names:
        return None
    answered = [
        n
        for n in names
        if any(judge_labels(r, n, set())["labels"] for r in results.values() if not r.empty)
    ]
    field = field or (answered[0] if answered else None)
    if field is None or field not in answered:
        return None
    human = inputs.kind.human_field(field, inputs.settings)
    cats = [str(c) for c in human.values]
    labels = field_frame(inputs.annotations, field)
    pairing: Any = _Pairing(results, field, versions)
    columns = item_columns(inputs.items)  # once for every version
    rows = []
    for v in versions:
        r = results[v.signature]
        if v.probe is not None or r.empty or not judge_labels(r, field, set())["labels"]:
            continue
        row = _row(v, r, field, labels, cats, n_resamples=n_resamples, seed=seed, epsilon=epsilon)
        means = row.pop("_scores")
        scan = bias_scan(row.pop("_disagree"), inputs.items, columns).to_dict()
        row["probes"]["bias_scan"] = {**scan, "residual": DISAGREEMENT}
        row["probes"]["position_swap"] = changed_share(
            pairing, v, swap_partner(v, versions), means, "no swapped run"
        )
        row["probes"]["option_order"] = changed_share(
            pairing, v, options_partner(v, versions), means, "no reverse_options probe run"
        )
        rows.append(row)
    return {
        "project": project,
        "kind": inputs.kind.name,
        "field": field,
        "field_type": FieldType.CATEGORICAL.value,
        "fields": answered,
        "headline": "kappa",
        "versions": rows,
        "meta": {
            "n_resamples": n_resamples,
            "seed": seed,
            "ci": "95% percentile bootstrap over items",
            "epsilon": epsilon,
            "n_items_total": inputs.meta["n_items_total"],
            "n_gold_items": inputs.meta["n_gold_items"],
        },
    }
