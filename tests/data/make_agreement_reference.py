"""Regenerate ``agreement_reference.json``: the example data sets of tests/data and the
values the reference libraries give on them.

irrCAC 0.4.4 pins scipy 1.12 and pandas < 3, so it cannot live in the project's venv;
install it aside and run this script with it on the path:

    pip install --no-deps --target /tmp/irrcac irrCAC==0.4.4
    PYTHONPATH=/tmp/irrcac:. python tests/data/make_agreement_reference.py

(irrCAC is given its categories explicitly: under pandas 3 its own category list would
include NaN.) The data sets are seeded and written as long CSVs beside this script.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pingouin
from irrCAC import datasets
from irrCAC.raw import CAC
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa

HERE = Path(__file__).resolve().parent


def nominal_missing() -> pd.DataFrame:
    """20 items, 5 annotators, categories a/b/c; items carry 2 to 5 ratings."""
    rng = np.random.default_rng(15)
    truth = rng.choice(list("abc"), size=20, p=[0.5, 0.3, 0.2])
    rows = []
    for i, t in enumerate(truth):
        n = [3, 3, 3, 4, 2, 5][i % 6]
        for a in rng.choice(5, size=n, replace=False):
            v = t if rng.random() < 0.75 else rng.choice(list("abc"))
            rows.append((f"u{i:03d}", f"r{a}", v))
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def ordinal() -> pd.DataFrame:
    """30 items, 4 annotators, 1-5, about 10% missing."""
    rng = np.random.default_rng(16)
    truth = rng.integers(1, 6, size=30)
    rows = []
    for i, t in enumerate(truth):
        for a in range(4):
            if rng.random() < 0.1:
                continue
            v = int(np.clip(t + rng.choice([-1, 0, 0, 0, 1]), 1, 5))
            rows.append((f"u{i:03d}", f"r{a}", v))
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def continuous() -> pd.DataFrame:
    """25 items, 4 annotators, 0-1 with two decimals, a few missing."""
    rng = np.random.default_rng(17)
    truth = rng.random(25)
    rows = []
    for i, t in enumerate(truth):
        for a in range(4):
            if rng.random() < 0.08:
                continue
            v = round(float(np.clip(t + rng.normal(0, 0.08), 0, 1)), 2)
            rows.append((f"u{i:03d}", f"r{a}", v))
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def _cac(wide: pd.DataFrame, categories: list, weights: str, method: str) -> float:
    cac = CAC(wide.astype(object), weights=weights, categories=categories, digits=15)
    return float(getattr(cac, method)()["est"]["coefficient_value"])


def _irrcac(wide: pd.DataFrame, categories: list) -> dict[str, float]:
    out = {
        "fleiss": _cac(wide, categories, "identity", "fleiss"),
        "gwet_ac1": _cac(wide, categories, "identity", "gwet"),
    }
    numeric = all(isinstance(c, int | float) for c in categories)
    if numeric:
        for w in ("linear", "quadratic"):
            out[f"gwet_ac2_{w}"] = _cac(wide, categories, w, "gwet")
    return out


def _icc(long: pd.DataFrame) -> dict[str, list[float]]:
    pingouin.options["round.column.CI95"] = None
    table = pingouin.intraclass_corr(
        long.astype({"value": float}),
        targets="item_id",
        raters="annotator",
        ratings="value",
        nan_policy="omit",
    ).set_index("Type")
    return {k: [float(table.at[k, "ICC"]), *map(float, table.at[k, "CI95"])] for k in table.index}


def _pearson_mean(wide: pd.DataFrame) -> dict[str, object]:
    rs, ns = {}, {}
    for a, b in combinations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        ns[f"{a}|{b}"] = len(both)
        rs[f"{a}|{b}"] = float(stats.pearsonr(both[a], both[b]).statistic)
    return {"mean": float(np.mean(list(rs.values()))), "pairs": rs, "n": ns}


def _modal_fleiss(wide: pd.DataFrame, categories: list) -> dict[str, float]:
    m = wide.notna().sum(axis=1)
    counts = m[m >= 2].value_counts()
    mode = max(counts[counts == counts.max()].index)
    rows = wide[m == mode]
    table = np.array([[int((r == c).sum()) for c in categories] for _, r in rows.iterrows()])
    return {"kappa": float(fleiss_kappa(table, method="fleiss")), "n": int(len(rows))}


def main() -> None:
    sets = {"nominal_missing": nominal_missing(), "ordinal": ordinal(), "continuous": continuous()}
    ref: dict[str, dict] = {}
    for name, long in sets.items():
        long.to_csv(HERE / f"agreement_{name}.csv", index=False)
        wide = long.pivot(index="item_id", columns="annotator", values="value")
        cats = sorted(long["value"].unique().tolist())
        entry: dict[str, object] = {"irrcac": _irrcac(wide, cats)}
        if name == "nominal_missing":
            entry["fleiss_modal"] = _modal_fleiss(wide, cats)
            entry["n_items"] = int(wide.notna().any(axis=1).sum())
        else:
            entry["icc"] = _icc(long)
            entry["icc_n"] = int(wide.notna().all(axis=1).sum())
        if name == "continuous":
            entry["pearson"] = _pearson_mean(wide)
        ref[name] = entry
    # irrCAC's own published example tables (Gwet 2014), with the categories they use
    ref["irrcac_raw_4raters"] = {"irrcac": _irrcac(datasets.raw_4raters(), [1, 2, 3, 4, 5])}
    ref["irrcac_raw_5observers"] = {"irrcac": _irrcac(datasets.raw_5observers(), [0, 1, 2, 3])}
    (HERE / "agreement_reference.json").write_text(json.dumps(ref, indent=2) + "\n")


if __name__ == "__main__":
    main()
