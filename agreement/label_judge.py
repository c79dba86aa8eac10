"""A categorical judge against the people: one label per item against their majority.

- Accuracy: the share of items where the judge's label equals the human majority label.
- Cohen's kappa (Cohen 1960) of the judge's labels against the majority labels, with a
  95% percentile bootstrap CI over items.
- The confusion matrix: rows the human majority label, columns the judge's label.
- Confidence calibration (Potato's definition): the judge's confidence in its own answer
  (e.g. the share of its samples that gave it) against whether the answer is correct;
  ECE = sum_b n_b / N * |accuracy_b - mean confidence_b| over 10 equal-width bins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agreement.judge_probes import bin_index
from agreement.kappa import cohen

N_BINS = 10


def _kappa(a: np.ndarray, b: np.ndarray, k: int) -> float | None:
    return cohen(a, b, k).value


def compare_labels(
    judge: Mapping[str, str],
    human: Mapping[str, str],
    categories: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
) -> dict[str, Any]:
    """Accuracy, kappa with CI and the confusion matrix on the items both have."""
    items = sorted(i for i in judge if i in human)
    seen = {judge[i] for i in items} | {human[i] for i in items}
    cats = list(categories) + sorted(seen - set(categories))
    if not items:
        return {"n": 0, "reason": "no item has both a judge label and a human majority label"}
    code = {c: k for k, c in enumerate(cats)}
    a = np.array([code[human[i]] for i in items])
    b = np.array([code[judge[i]] for i in items])
    k = len(cats)
    stat = cohen(a, b, k)
    ci = None
    if n_resamples and stat.value is not None:
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, len(items), size=(n_resamples, len(items)))
        values = [v for d in draws if (v := _kappa(a[d], b[d], k)) is not None]
        if values:
            ci = [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]
    matrix = np.bincount(a * k + b, minlength=k * k).reshape(k, k)
    return {
        "n": len(items),
        "accuracy": float(np.mean(a == b)),
        "kappa": stat.value,
        "kappa_reason": stat.reason,
        "ci": ci,
        "confusion": {"labels": cats, "matrix": matrix.tolist(), "rows": "people", "cols": "judge"},
    }


def confidence_calibration(
    confidence: np.ndarray, correct: np.ndarray, n_bins: int = N_BINS
) -> dict[str, Any]:
    """Potato's ECE: the judge's confidence in its own answer against correctness."""
    c, y = np.asarray(confidence, float), np.asarray(correct, float)
    if len(c) == 0:
        return {"n": 0, "reason": "no item with both a confidence and a human label"}
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    at = bin_index(c, n_bins)
    ece, bins = 0.0, []
    for b in range(n_bins):
        mask = at == b
        if mask.any():
            conf, acc = float(c[mask].mean()), float(y[mask].mean())
            ece += mask.sum() / len(c) * abs(acc - conf)
            bins.append(
                {"lo": float(edges[b]), "n": int(mask.sum()), "confidence": conf, "accuracy": acc}
            )
    return {
        "n": len(c),
        "ece": float(ece),
        "definition": "confidence in its own answer vs correctness",
        "bins": bins,
    }
