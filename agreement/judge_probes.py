"""Reliability and bias probes of one judge version.

- Self-consistency (judges sampled n > 1 times per item): the share of items whose
  samples all agree, and Krippendorff's alpha with the samples as raters (nominal for
  binary decisions, interval otherwise).
- Calibration (a binary field, the judge giving a probability p of the positive class):
  Brier score = mean (p - y)^2; expected calibration error over 10 equal-width bins,
  ECE = sum_b n_b / N * |mean y_b - mean p_b|; the bins are the reliability diagram.
- Length bias: Spearman's rho and Kendall's tau-b of the residual (judge - human
  reference) with the response length in characters, with bootstrap CIs.
- Position swap (and option order): the same version run with the two texts exchanged
  (or a label judge's options reversed); the share of items whose decision (binary) or
  score (otherwise) changes, with its 95% Wilson score interval.
"""

from __future__ import annotations

from typing import Any

import krippendorff
import numpy as np

from agreement.correlation import correlations
from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.measures import PROBES, Entry, Measure, MeasureView, read
from agreement.results import clean

N_BINS = 10
#: The headline of the length-bias probe, read from its block (``block["spearman"]``).
#: Declared here and not registered: the probes are not rows of the agreement document.
LENGTH_BIAS = Measure(
    "spearman",
    MeasureView(
        "length ρ (residual)",
        "Spearman's rho of the judge's residual (judge - human reference) with the length",
        short="length ρ",
    ),
    frozenset({"binary", "ordinal", "interval", "derived"}),
    section=PROBES,
    nested=True,
)


def length_bias_entry(block: dict[str, Any]) -> Entry:
    """The length-bias probe's headline (value, CI, n, reason) from its JSON block."""
    return read(LENGTH_BIAS, block)[0]


def self_consistency(samples: list[list[float]], discrete: bool) -> dict[str, Any]:
    """Agreement among each item's samples (items with at least two samples)."""
    rows = [np.asarray(s, dtype=float) for s in samples if len(s) >= 2]
    if not rows:
        return {"n": 0, "reason": "no item has two or more samples (samples n = 1)"}
    width = max(len(r) for r in rows)
    data = np.full((width, len(rows)), np.nan)
    for j, r in enumerate(rows):
        data[: len(r), j] = r
    unanimous = float(np.mean([np.ptp(r) == 0 for r in rows]))
    out: dict[str, Any] = {"n": len(rows), "samples": width, "unanimous": unanimous}
    if len(np.unique(data[~np.isnan(data)])) < 2:
        out["alpha"] = None
        out["alpha_reason"] = "every sample has the same value: no variation to agree on"
    else:
        level = "nominal" if discrete else "interval"
        out["alpha"] = clean(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    return out


def bin_index(values: np.ndarray, n_bins: int = N_BINS) -> np.ndarray:
    """Equal-width bin of each value in 0..1: floor(v * n_bins), 1.0 in the last bin.

    Not ``np.digitize`` on ``linspace`` edges: those edges are rounded (0.6 is stored as
    0.6000000000000001), so a vote share of 6 out of 10 would fall into the bin below
    the one it opens, unlike Potato and the usual [lo, hi) reading of a bin."""
    v = np.clip(np.asarray(values, dtype=float), 0.0, 1.0)
    return np.minimum((v * n_bins).astype(int), n_bins - 1)


def calibration(prob: np.ndarray, gold: np.ndarray, n_bins: int = N_BINS) -> dict[str, Any]:
    """Brier score, ECE and the reliability diagram's bins of probabilities vs 0/1 labels."""
    p, y = np.asarray(prob, dtype=float), np.asarray(gold, dtype=float)
    if len(p) == 0:
        return {"n": 0, "reason": "no item with both a probability and a human decision"}
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    at = bin_index(p, n_bins)
    bins, ece = [], 0.0
    for b in range(n_bins):
        mask = at == b
        if not mask.any():
            continue
        conf, acc = float(p[mask].mean()), float(y[mask].mean())
        ece += mask.sum() / len(p) * abs(acc - conf)
        bins.append(
            {
                "lo": float(edges[b]),
                "hi": float(edges[b + 1]),
                "n": int(mask.sum()),
                "mean_probability": conf,
                "share_positive": acc,
            }
        )
    return {
        "n": len(p),
        "brier": float(np.mean((p - y) ** 2)),
        "ece": float(ece),
        "definition": "P(yes) vs human majority",
        "bins": bins,
    }


def length_bias(
    residual: np.ndarray,
    length: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Rank correlations of the residual with the length, with bootstrap CIs."""
    corr = correlations(residual, length, n_resamples=n_resamples, seed=seed)
    return {"n": len(residual), **{k: corr[k].to_dict() for k in ("spearman", "kendall")}}


def position_swap(
    plain: dict[str, float], swapped: dict[str, float], discrete: bool
) -> dict[str, Any]:
    """Share of the items scored both ways whose decision / score changes."""
    common = sorted(set(plain) & set(swapped))
    if not common:
        return {"n": 0, "reason": "no item scored both with and without the swap"}
    a = np.array([plain[i] for i in common], dtype=float)
    b = np.array([swapped[i] for i in common], dtype=float)
    if discrete:
        changed = (a >= 0.5) != (b >= 0.5)
    else:
        changed = ~np.isclose(a, b)
    k = int(changed.sum())
    return {
        "n": len(common),
        "n_changed": k,
        "changed": k / len(common),
        "ci": list(wilson_interval(k, len(common))),
        "mean_abs_change": float(np.abs(a - b).mean()),
        "unit": "decision" if discrete else "score",
    }


def wilson_interval(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a share k/n (n > 0): centre
    (p + z²/2n) / (1 + z²/n), half-width z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)."""
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * float(np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
