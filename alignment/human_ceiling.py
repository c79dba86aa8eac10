"""The human-ceiling test of *Judge's Verdict* (Han, Titericz, Balough and Zhou, 2025):
is the judge inside the spread of people, or more consistent than people can be?

1. Correlation filter: Pearson's r of the judge's score with the people's mean per item
   must reach 0.80 (not applied to unordered labels, which have no mean).
2. Cohen's kappa of the judge with each annotator (on the items both rated), averaged;
   Cohen's kappa of every annotator pair; z = (judge's mean kappa - mean of the pairs'
   kappas) / standard deviation of the pairs' kappas (sample SD, n - 1).
   |z| < 1: human-like; z > 1: super-consistent (agrees with people more than they agree
   with each other); z < -1: below the people.

Binary and categorical fields use unweighted kappa; ordinal fields (and other numeric
fields on a small discrete scale) use quadratic-weighted kappa, named as such. The judge's
score (mean over runs) is put on the people's nearest scale value.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from agreement.correlation_tests import pearson
from agreement.kappa import cohen

MIN_R = 0.80
#: More distinct values than this and a numeric field is no scale for kappa.
MAX_LEVELS = 11
KAPPA_NAMES = {None: "Cohen's kappa", "quadratic": "quadratic-weighted kappa"}


def verdict(z: float | None, passes: bool | None) -> str:
    """The z-score in words (the correlation filter first)."""
    if z is None:
        return "no verdict"
    if passes is False:
        return f"not rated: below the correlation filter (r < {MIN_R:.2f})"
    if z > 1:
        return "super-consistent (agrees with people more than they agree with each other)"
    if z < -1:
        return "below the people (agrees with them less than they agree with each other)"
    return "human-like (inside the people's spread)"


def _correlation(judge: pd.Series, labels: pd.DataFrame) -> dict[str, Any]:
    mean = labels.groupby("item_id")["value"].mean()
    both = pd.concat([judge.rename("j"), mean.rename("h")], axis=1, join="inner").dropna()
    n = len(both)
    if n < 3 or both["j"].nunique() < 2 or both["h"].nunique() < 2:
        return {
            "r": None,
            "n": n,
            "min": MIN_R,
            "passes": None,
            "reason": "r needs 3 items that vary",
        }
    r = pearson(both["j"].to_numpy(float), both["h"].to_numpy(float))[0]
    return {"r": r, "n": n, "min": MIN_R, "passes": r >= MIN_R}


def _undefined(reason: str, **rest: Any) -> dict[str, Any]:
    return {"z": None, "verdict": "no verdict", "reason": reason, **rest}


def human_ceiling(
    judge: pd.Series, labels: pd.DataFrame, *, ordered: bool, weights: str | None
) -> dict[str, Any]:
    """The test of one judge: ``judge`` its value per item (index item_id), ``labels``
    the people's (item_id, annotator, value); ``ordered`` False for unordered labels."""
    labels = labels.dropna(subset=["value"])
    domain = sorted(set(labels["value"]), key=lambda v: (str(type(v)), v))
    name = KAPPA_NAMES[weights]
    head = {"kappa": name}
    if ordered and len(domain) > MAX_LEVELS:
        return _undefined(
            f"kappa needs a discrete scale: the people gave {len(domain)} distinct values", **head
        )
    if len(domain) < 2:
        return _undefined("the people used one value only", **head)
    code = {v: k for k, v in enumerate(domain)}
    if ordered:
        scale = np.array(domain, float)
        rated = judge.dropna()
        # each score's nearest scale value (the first of two equally near), all at once
        nearest = np.abs(rated.to_numpy(float)[:, None] - scale[None, :]).argmin(axis=1)
        judged = pd.Series(nearest, index=rated.index)
    else:
        judged = judge[judge.isin(code)].map(code)
    people = labels.assign(code=labels["value"].map(code)).pivot_table(
        index="item_id", columns="annotator", values="code", aggfunc="first"
    )
    k = len(domain)
    pairs = []
    for a, b in combinations(people.columns, 2):
        both = people[[a, b]].dropna()
        s = cohen(both[a].to_numpy(int), both[b].to_numpy(int), k, weights)
        pairs.append({"pair": f"{a}|{b}", "kappa": s.value, "n": s.n, "reason": s.reason})
    per = []
    for a in people.columns:
        both = pd.concat([people[a].rename("h"), judged.rename("j")], axis=1, join="inner").dropna()
        s = cohen(both["h"].to_numpy(int), both["j"].to_numpy(int), k, weights)
        per.append({"annotator": str(a), "kappa": s.value, "n": s.n, "reason": s.reason})
    valid = [p["kappa"] for p in pairs if p["kappa"] is not None]
    mine = [p["kappa"] for p in per if p["kappa"] is not None]
    rest = {
        **head,
        "correlation": _correlation(judge, labels)
        if ordered
        else {"reason": "no correlation filter on unordered labels"},
        "judge": {"mean": float(np.mean(mine)) if mine else None, "annotators": per},
        "people": {
            "mean": float(np.mean(valid)) if valid else None,
            "sd": float(np.std(valid, ddof=1)) if len(valid) > 1 else None,
            "pairs": pairs,
            "n_pairs": len(valid),
        },
        # as objects: pandas' Arrow-string isin converts each id one by one
        "n": int(judged.index.astype(object).isin(people.index.astype(object)).sum()),
    }
    if len(valid) < 2:
        why = f"needs two annotator pairs with a kappa (three annotators); {len(valid)} here"
        return _undefined(why, **rest)
    if not mine:
        return _undefined("the judge shares no items with any annotator", **rest)
    sd = rest["people"]["sd"]
    if sd == 0:
        return _undefined("every annotator pair has the same kappa: no spread to compare", **rest)
    z = (rest["judge"]["mean"] - rest["people"]["mean"]) / sd
    return {
        "z": z,
        "verdict": verdict(z, rest["correlation"].get("passes")),
        "reason": None,
        **rest,
    }
