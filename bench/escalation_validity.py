"""Does the escalation guarantee hold? 1,000 simulated calibration sets per setting.

Each setting draws the judge's confidence c per item and whether it agrees with people
with probability q(c); the true agreement on the items kept at a threshold lam is
E[q(c) | c >= lam], computed exactly on the confidence's distribution. For each simulated
calibration set, :func:`alignment.escalation.fixed_sequence` picks a threshold; the
guarantee holds for that set when the true agreement at the threshold is >= 1 - alpha
(keeping nothing holds trivially). Prints, per setting, the share of sets where it held
(should be >= 1 - delta), the mean coverage and the share of sets that kept nothing.

    python bench/escalation_validity.py [--sets 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alignment.escalation import fixed_sequence

#: name -> (confidence levels, their probabilities, q(c) at each level)
FINE = np.linspace(0.5, 1.0, 501)
SETTINGS = {
    "calibrated, continuous (q = c)": (FINE, np.full(501, 1 / 501), FINE),
    "overconfident, continuous (q = c^2)": (FINE, np.full(501, 1 / 501), FINE**2),
    "5 samples, share agreeing (q = 0.55 + 0.4 c)": (
        np.array([0.6, 0.8, 1.0]),
        np.array([0.2, 0.3, 0.5]),
        0.55 + 0.4 * np.array([0.6, 0.8, 1.0]),
    ),
}


def true_agreement(levels: np.ndarray, probs: np.ndarray, q: np.ndarray, lam: float) -> float:
    """E[q(c) | c >= lam] on the confidence's distribution."""
    keep = levels >= lam - 1e-9
    return float((probs[keep] * q[keep]).sum() / probs[keep].sum())


def run(n: int, alpha: float, delta: float, sets: int, rng: np.random.Generator) -> None:
    for name, (levels, probs, q) in SETTINGS.items():
        held, coverage, none = 0, [], 0
        for _ in range(sets):
            pick = rng.choice(len(levels), size=n, p=probs)
            agrees = rng.random(n) < q[pick]
            e = fixed_sequence(levels[pick], agrees, alpha, delta)
            if e.threshold is None:
                held, none = held + 1, none + 1
                coverage.append(0.0)
                continue
            held += true_agreement(levels, probs, q, e.threshold) >= 1 - alpha - 1e-12
            coverage.append(e.coverage)
        print(
            f"n {n:4d}, alpha {alpha}, delta {delta}: {name}: guarantee held in "
            f"{held / sets:.3f} of {sets} sets (needs >= {1 - delta}); mean coverage "
            f"{np.mean(coverage):.3f}; kept nothing in {none / sets:.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    for n in (100, 500):
        run(n, 0.1, 0.05, args.sets, rng)


if __name__ == "__main__":
    main()
