"""Simulation: how often the estimates' 95 % intervals cover the truth, and how wide they
are beside the human-only interval, by the number of labelled items.

Synthetic studies through the real functions (``estimates.ppi``, ``estimates.rogan_gladen``):
2,000 judged items, n of them labelled, for n = 10, 20, 30, 50, 100.

- binary: a yes rate of 0.3; the judge says yes to a true yes with probability 0.85 and
  to a true no with probability 0.15 (sensitivity = specificity = 0.85);
- scale: human scores 1-5 (a rounded normal around 3, SD 1), the judge the human score
  plus normal noise (SD 0.7) and a bias of +0.3.

Prints a Markdown table (coverage in %, the median width of each interval over the
human-only one, and the share of studies where it is narrower) for docs/estimates.md;
``estimates/coverage.py`` keeps the coverage figures the small-sample note quotes.

    .venv/bin/python bench/estimates_coverage.py [--studies 5000] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from estimates.ppi import classical_mean, ppi_mean
from estimates.rogan_gladen import corrected_rate

SIZES = (10, 20, 30, 50, 100)
JUDGED = 2000
METHODS = {"binary": ("human", "ppi", "corrected"), "scale": ("human", "ppi")}
TRUTH = {"binary": 0.3}


def _study(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Human values and judge scores of n + JUDGED items (the first n are labelled)."""
    size = n + JUDGED
    if kind == "binary":
        y = (rng.random(size) < TRUTH["binary"]).astype(float)
        yes = rng.random(size)
        return y, np.where(y == 1, yes < 0.85, yes < 0.15).astype(float)
    y = np.clip(np.round(rng.normal(3, 1, size)), 1, 5)
    return y, y + 0.3 + rng.normal(0, 0.7, size)


def _scale_truth() -> float:
    """The mean of the rounded, clipped normal (exact, from its cell probabilities)."""
    from statistics import NormalDist

    d = NormalDist(3, 1)
    cuts = [-np.inf, 1.5, 2.5, 3.5, 4.5, np.inf]
    probs = [
        d.cdf(b) - d.cdf(a) if np.isfinite(a) else d.cdf(b)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    return float(sum(p * v for p, v in zip(probs, range(1, 6), strict=True)))


def simulate(kind: str, n: int, studies: int, seed: int) -> dict[str, dict[str, float]]:
    """Coverage, median width ratio to human-only and share narrower, per method."""
    rng = np.random.default_rng([seed, n, len(kind)])
    truth = TRUTH.get(kind) or _scale_truth()
    hits = {m: [] for m in METHODS[kind]}
    widths = {m: [] for m in METHODS[kind]}
    for _ in range(studies):
        y, f = _study(kind, n, rng)
        est = {
            "human": classical_mean(y[:n]),
            "ppi": ppi_mean(y[:n], f[:n], f[n:]),
        }
        if kind == "binary":
            est["corrected"] = corrected_rate(f, y[:n], f[:n])
        for m, e in est.items():
            if e.ci is None:
                hits[m].append(np.nan)
                widths[m].append(np.nan)
                continue
            hits[m].append(float(e.ci[0] <= truth <= e.ci[1]))
            widths[m].append(e.ci[1] - e.ci[0])
    human = np.array(widths["human"])
    out = {}
    for m in METHODS[kind]:
        w = np.array(widths[m])
        ok = ~np.isnan(w) & ~np.isnan(human) & (human > 0)
        out[m] = {
            "coverage": float(np.nanmean(hits[m])),
            "defined": float(np.mean(~np.isnan(w))),
            "width_ratio": float(np.median(w[ok] / human[ok])),
            "narrower": float(np.mean(w[ok] < human[ok])),
        }
    return out


def main() -> None:
    """Run every scenario and size; print the table and the figures for coverage.py."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    names = {"human": "human only", "ppi": "PPI++", "corrected": "Rogan-Gladen"}
    print(f"{args.studies} studies per row, {JUDGED} judged items; load {os.getloadavg()[0]:.2f}")
    print()
    print("| field | n labelled | method | coverage | median width / human-only | narrower |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    figures: dict[str, dict[str, dict[int, float]]] = {}
    for kind in METHODS:
        for n in SIZES:
            res = simulate(kind, n, args.studies, args.seed)
            for m, r in res.items():
                figures.setdefault(kind, {}).setdefault(m, {})[n] = round(100 * r["coverage"], 1)
                ratio = "1" if m == "human" else f"{r['width_ratio']:.2f}"
                narrower = "—" if m == "human" else f"{100 * r['narrower']:.1f} %"
                print(
                    f"| {kind} | {n} | {names[m]} | {100 * r['coverage']:.1f} % | {ratio} "
                    f"| {narrower} |"
                )
    print()
    print("COVERAGE =", figures)


if __name__ == "__main__":
    main()
