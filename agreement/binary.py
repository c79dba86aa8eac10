"""Binary decisions against human labels, and Bi-Fact's calibrated threshold (Table 1).

- Reference label: the majority of the human 0/1 labels of an item. An exact tie (as
  many 0s as 1s) has no majority: the item is left out and counted as ``n_ties``.
- precision = tp / (tp + fp), recall = tp / (tp + fn), F1 their harmonic mean, with 1 as
  the positive class; kappa is Cohen's kappa between the decisions and the reference.
- Calibration (Bi-Fact, Table 1): scores are rescaled to 0..1; of the 30 thresholds
  ``numpy.linspace(0.01, 1.0, 30)``, the one with the best F1 on the dev split is kept
  (ties: the lowest threshold), an item being positive when score >= threshold; the
  figures are then reported on the test split. Dev and test come from the items' split
  (dev / development / validation / val vs test; without test labels every non-dev item
  is test); without any dev item a seeded 10% of the items is the dev split.
- Degenerate results are flagged, not presented as findings (``flags`` of the result):
  ``small_test`` when the test split has fewer than ``MIN_TEST_ITEMS`` items, and
  ``threshold_at_edge`` when the chosen threshold is the grid's lowest (every item with a
  score is called positive) or highest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agreement.kappa import cohen
from agreement.results import BinaryComparison
from common.notes import once_each

THRESHOLDS = np.linspace(0.01, 1.0, 30)
DEV_NAMES = {"dev", "development", "validation", "val"}
TEST_NAMES = {"test"}
DEV_SHARE = 0.10
SPLIT_SEED = 13
#: Fewer test items than this and the calibrated figures are flagged ``small_test``.
MIN_TEST_ITEMS = 30


def majority(values: Sequence[float]) -> int | None:
    """Majority of 0/1 labels; None on an exact tie or with no labels."""
    ones = sum(1 for v in values if v >= 0.5)
    zeros = len(values) - ones
    if ones == zeros:
        return None
    return int(ones > zeros)


def confusion(pred: np.ndarray, gold: np.ndarray) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of 0/1 arrays."""
    pred, gold = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    return (
        int((pred & gold).sum()),
        int((pred & ~gold).sum()),
        int((~pred & gold).sum()),
        int((~pred & ~gold).sum()),
    )


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def compare(
    pred: np.ndarray,
    gold: np.ndarray,
    *,
    threshold: float | None = None,
    split: str = "all",
    against: str | None = None,
    score_field: str | None = None,
) -> BinaryComparison:
    """Precision, recall, F1 and Cohen's kappa of 0/1 decisions vs 0/1 reference labels."""
    n = len(gold)
    if n == 0:
        return BinaryComparison(
            threshold,
            None,
            None,
            None,
            None,
            0,
            split=split,
            against=against,
            score_field=score_field,
            reason="no item with both a decision and a reference label",
        )
    tp, fp, fn, tn = confusion(pred, gold)
    notes = {}
    precision = _ratio(tp, tp + fp)
    if precision is None:
        notes["precision"] = "no positive decision"
    recall = _ratio(tp, tp + fn)
    if recall is None:
        notes["recall"] = "no positive reference label"
    f1 = None
    if precision is not None and recall is not None:
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    else:
        notes["f1"] = "precision or recall undefined"
    kappa = cohen(np.asarray(pred, dtype=int), np.asarray(gold, dtype=int), 2)
    if kappa.value is None:
        notes["kappa"] = kappa.reason or "undefined"
    return BinaryComparison(
        threshold,
        precision,
        recall,
        f1,
        kappa.value,
        n,
        tp,
        fp,
        fn,
        tn,
        split=split,
        against=against,
        score_field=score_field,
        notes=notes,
        flags=one_class_flags(tp + fp, fn + tn, tp + fn, fp + tn),
    )


def one_class_flags(said_yes: int, said_no: int, are_yes: int, are_no: int) -> dict[str, str]:
    """Flags for decisions or reference labels that are all one class: kappa is then 0 or
    undefined by construction, whatever the evaluator's merit."""
    flags = {}
    if said_yes == 0 or said_no == 0:
        answer = "yes" if said_no == 0 else "no"
        flags["one_decision"] = (
            f"the evaluator said {answer} to all {said_yes + said_no} items: kappa is 0 by "
            "construction and says nothing about agreement"
        )
    if are_yes == 0 or are_no == 0:
        label = "yes" if are_no == 0 else "no"
        flags["one_reference_label"] = (
            f"every reference label is {label}: kappa and F1 cannot show agreement here"
        )
    return flags


def dev_test_split(
    item_ids: Sequence[str], splits: Sequence[str | None], seed: int = SPLIT_SEED
) -> tuple[np.ndarray, np.ndarray, str]:
    """Boolean dev and test masks and how they were made ('item split' or 'seeded 10%')."""
    # pandas 3 turns a missing split into NaN, which is truthy: test for text instead.
    names = np.array(
        [s.strip().lower() if isinstance(s, str) else "" for s in splits], dtype=object
    )
    dev = np.isin(names, list(DEV_NAMES))
    if dev.any():
        test = np.isin(names, list(TEST_NAMES))
        if not test.any():
            test = ~dev
        return dev, test, "item split"
    n = len(item_ids)
    # The seeded draw picks positions in item_id order, so the dev items depend only on
    # which items there are, not on the order the caller lists them in.
    by_id = np.argsort(np.asarray([str(i) for i in item_ids], dtype=object), kind="stable")
    dev = np.zeros(n, dtype=bool)
    dev[by_id[np.random.default_rng(seed).permutation(n)[: math.ceil(DEV_SHARE * n)]]] = True
    return dev, ~dev, f"seeded {int(DEV_SHARE * 100)}% dev split (seed {seed})"


def best_threshold(scores01: np.ndarray, gold: np.ndarray) -> tuple[float | None, float | None]:
    """The threshold of THRESHOLDS with the best F1 (lowest on ties), and that F1."""
    gold = np.asarray(gold, dtype=bool)
    best_t, best_f1 = None, -1.0
    for t in THRESHOLDS:
        tp, fp, fn, _ = confusion(scores01 >= t, gold)
        if tp + fp == 0 or tp + fn == 0:
            continue
        f1 = 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
        if f1 > best_f1 + 1e-12:
            best_t, best_f1 = float(t), f1
    return best_t, (best_f1 if best_t is not None else None)


def calibrated(
    scores01: np.ndarray,
    gold: np.ndarray,
    dev: np.ndarray,
    test: np.ndarray,
    *,
    against: str | None = None,
    score_field: str | None = None,
    split_rule: str = "",
) -> BinaryComparison:
    """Bi-Fact's protocol: pick the threshold on dev, report on test."""
    threshold, dev_f1 = best_threshold(scores01[dev], gold[dev])
    n_dev = int(dev.sum())
    if threshold is None:
        return BinaryComparison(
            None,
            None,
            None,
            None,
            None,
            int(test.sum()),
            split="test",
            against=against,
            score_field=score_field,
            n_dev=n_dev,
            reason="no threshold has a defined F1 on the dev split "
            f"(n_dev={n_dev}: it needs positive labels and decisions)",
            flags=calibration_flags(None, int(test.sum())),
        )
    res = compare(
        scores01[test] >= threshold,
        gold[test],
        threshold=threshold,
        split="test",
        against=against,
        score_field=score_field,
    )
    notes = dict(res.notes)
    if split_rule:
        notes["split"] = split_rule
    return BinaryComparison(
        **{
            **res.__dict__,
            "n_dev": n_dev,
            "dev_f1": dev_f1,
            "notes": notes,
            "flags": {**res.flags, **calibration_flags(threshold, res.n)},
        }
    )


def calibration_flags(threshold: float | None, n_test: int) -> dict[str, str]:
    """Why a calibrated result should not be read as a finding (empty when it can be)."""
    flags = {}
    if n_test < MIN_TEST_ITEMS:
        flags["small_test"] = (
            f"test split too small: {n_test} items (fewer than {MIN_TEST_ITEMS}), "
            "so precision, recall, F1 and kappa can swing on one item"
        )
    if threshold is not None and np.isclose(threshold, THRESHOLDS[0]):
        flags["threshold_at_edge"] = (
            f"threshold {threshold:g} is the grid's lowest: nearly every item is called "
            "positive, the scores did not separate the classes on the dev split"
        )
    elif threshold is not None and np.isclose(threshold, THRESHOLDS[-1]):
        flags["threshold_at_edge"] = (
            f"threshold {threshold:g} is the grid's highest: only top scores are called "
            "positive, the scores did not separate the classes on the dev split"
        )
    return flags


def flag_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The flags of the ``calibrated`` rows of a document, each stated once: why, and
    which evaluator and score it concerns (how many when several share it)."""
    return once_each(
        (
            (f"{r['evaluator']} · {r['score_field']}", text)
            for r in rows
            for text in (r.get("flags") or {}).values()
        ),
        "scores",
    )


def rescale01(scores: np.ndarray, scale: tuple[float, float] | None) -> tuple[np.ndarray, str]:
    """Min-max rescale to 0..1 by the field's known scale if every score lies within it,
    else by the observed range; returns the scores and which range was used."""
    s = np.asarray(scores, dtype=float)
    if scale is not None and scale[1] > scale[0] and s.min() >= scale[0] and s.max() <= scale[1]:
        lo, hi, how = scale[0], scale[1], "known scale"
    else:
        lo, hi, how = float(s.min()), float(s.max()), "observed range"
    if hi <= lo:
        return np.zeros_like(s), f"{how} is a single value"
    return (s - lo) / (hi - lo), f"{how} {lo:g}..{hi:g}"
