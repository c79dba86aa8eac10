"""Judge vs judge: a paired test of two evaluator versions against the people, per pair.

For every pair of versions (the first :data:`MAX_VERSIONS` that scored the field; the
position-swap probe runs are left out) on the items both scored and people labelled:
the headline figure of each (kappa for binary fields when both give 0/1 decisions, else
the correlation the table leads with) and the difference with a paired-bootstrap CI and
p (:mod:`agreement.paired_compare`), so "v2 agrees better" is a finding, not a hunch.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from agreement.inputs import is_binary_scores
from agreement.paired_compare import paired_difference
from alignment.inputs import FieldInputs
from alignment.scores import field_scores, per_item, relevant

MAX_VERSIONS = 6


def _statistic(headline: str, a: pd.Series, b: pd.Series) -> str:
    if headline != "kappa":
        return headline
    both = np.concatenate([a.to_numpy(float), b.to_numpy(float)])
    return "kappa" if is_binary_scores(both) else "pearson"


def judge_vs_judge(
    fi: FieldInputs, headline: str, *, n_resamples: int, seed: int
) -> list[dict[str, Any]]:
    """One entry per pair (a, b) of the versions in the table: a's and b's figure,
    a - b, its CI, p and n."""
    chosen = [
        v for v in fi.versions if not v.swapped and relevant(fi.results[v.signature], fi.field)
    ][:MAX_VERSIONS]
    majority = fi.reference.majority
    ref = (majority if fi.binary and majority is not None else fi.reference.mean).dropna()
    scores = {
        v.signature: per_item(field_scores(fi.results[v.signature], fi.field, set(v.few_shot_ids)))
        for v in chosen
    }
    out = []
    for a, b in combinations(chosen, 2):
        common = scores[a.signature].index.intersection(scores[b.signature].index)
        common = common.intersection(ref.index)
        sa, sb = scores[a.signature][common], scores[b.signature][common]
        stat = _statistic(headline, sa, sb)
        res = paired_difference(
            stat,
            sa.to_numpy(),
            sb.to_numpy(),
            ref[common].to_numpy(),
            n_resamples=n_resamples,
            seed=seed,
        )
        out.append({"a": a.label, "b": b.label, **res.to_dict()})
    return out


#: printf formats of :func:`judge_vs_judge_frame`'s figures: three decimals, as the CI.
JUDGE_VS_JUDGE_FORMATS = {"A's": "%.3f", "B's": "%.3f", "A - B": "%+.3f", "p": "%.3f"}


def judge_vs_judge_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """The pairs as a display table: A, B, statistic (in words), both figures, A - B, CI,
    p, n."""
    from alignment.frames import headline_name

    rows = [
        {
            "A": r["a"],
            "B": r["b"],
            "statistic": headline_name(r["statistic"]),
            "A's": r["value_a"],
            "B's": r["value_b"],
            "A - B": r["difference"],
            "95% CI": f"[{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]" if r["ci"] else None,
            "p": r["p"],
            "n": r["n"],
            "note": r["reason"],
        }
        for r in doc.get("judge_vs_judge", [])
    ]
    return pd.DataFrame(rows)
