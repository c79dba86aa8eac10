"""The alignment table: every evaluator version against the human reference on one field.

One row per version (see :mod:`alignment.versions`): n, the correlations (and kappa for
a binary field) with bootstrap CIs, calibrated binary P/R/F1/kappa, failure rate, mean
cost and tokens, date, the items left out as the version's few-shot examples, the
reliability and bias probes and the alternative annotator test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agreement.decision_kappa import decision_kappa
from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.evaluator import ScoreRows, compare_evaluator
from agreement.inputs import is_binary_scores
from alignment.inputs import FieldInputs, load_field
from alignment.judge_vs_judge import judge_vs_judge
from alignment.probes import probes
from alignment.scores import field_scores, per_item, relevant
from alignment.versions import FEW_SHOT_KEY, Version

if TYPE_CHECKING:
    from annotation_store import Store

#: The headline figure of each field type (the chart draws it by version).
HEADLINE = {"binary": "kappa", "ordinal": "spearman", "interval": "pearson", "derived": "pearson"}
EXCLUDED_REASON = (
    f"shown to the judge as few-shot examples ({FEW_SHOT_KEY} in the signature settings), "
    "so left out of this version's figures"
)


def _usage(results: pd.DataFrame) -> dict[str, Any]:
    n = len(results)
    failed = int((results["status"] != "ok").sum())
    mean = (lambda col: float(results[col].mean())) if n else (lambda col: None)
    return {
        "n_results": n,
        "n_failed": failed,
        "failure_rate": failed / n if n else None,
        "mean_cost": mean("cost"),
        "mean_tokens_in": mean("tokens_in"),
        "mean_tokens_out": mean("tokens_out"),
        "total_cost": float(results["cost"].sum()) if n else 0.0,
    }


def _headline(
    fi: FieldInputs, row: dict[str, Any], scores: pd.Series, n_resamples: int, seed: int
) -> dict[str, Any]:
    name = HEADLINE.get(fi.field_type, "pearson")
    if name != "kappa":
        c = row["correlations"][name]
        return {
            "name": name,
            "value": c["r"],
            "ci": c["ci"],
            "n": c["n"],
            "reason": c.get("reason"),
        }
    gold = fi.dense.majority[fi.space.codes(scores.index)]
    has = ~np.isnan(gold)
    x = scores.to_numpy(float)[has]
    if not is_binary_scores(x):
        b = row["binary"] or {}
        return {
            "name": "kappa",
            "value": b.get("kappa"),
            "ci": None,
            "n": b.get("n", 0),
            "reason": "scores are not 0/1 decisions: kappa at the calibrated threshold, test split",
        }
    value, ci, reason = decision_kappa(x, gold[has], n_resamples=n_resamples, seed=seed)
    return {
        "name": "kappa",
        "value": value,
        "ci": ci and list(ci),
        "n": int(has.sum()),
        "reason": reason,
    }


def version_row(
    fi: FieldInputs, v: Version, *, n_resamples: int, seed: int, epsilon: float
) -> dict[str, Any]:
    """Everything about one version on the field."""
    results = fi.results[v.signature]
    excluded = set(v.few_shot_ids)
    kept = results[~results["item_id"].isin(excluded)]
    scores = field_scores(results, fi.field, excluded)
    row: dict[str, Any] = {
        "label": v.label,
        "evaluator": v.evaluator,
        "version": v.version,
        "signature": v.signature,
        "model": v.model,
        "date": v.created_at.isoformat(timespec="seconds") if v.created_at else None,
        "n_runs": len(v.run_ids),
        "swapped": v.swapped,
        "excluded": {
            "n": len(excluded),
            "reason": EXCLUDED_REASON if excluded else None,
            "item_ids": sorted(excluded),
        },
        **_usage(kept),
    }
    item = fi.space.codes(scores["item_id"])
    res = compare_evaluator(
        v.evaluator,
        v.label,
        v.model,
        fi.field,
        ScoreRows(
            item, scores["run_id"].to_numpy(), scores["score"].to_numpy(float), (v.signature,)
        ),
        fi.dense,
        space=fi.space,
        scale=fi.scale,
        binary_against=fi.binary_against,
        binary_is_field=fi.binary,
        graded=not fi.binary,
        split_rule=fi.split_rule,
        n_resamples=n_resamples,
        seed=seed,
    )
    row["n"] = res.n
    row["correlations"] = {k: c.to_dict() for k, c in res.correlations.items()}
    row["binary"] = res.binary.to_dict() if res.binary else None
    row["reasons"] = dict(res.notes)
    means = per_item(scores)
    row["headline"] = _headline(fi, row, means, n_resamples, seed)
    row["probes"] = probes(
        fi, v, kept, means, bias=res.bias, n_resamples=n_resamples, seed=seed, epsilon=epsilon
    )
    return row


def alignment_table(
    store: Store,
    project: str,
    field: str | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    epsilon: float | None = None,
) -> dict[str, Any]:
    """The alignment document of one field (what ``cli.py alignment --json`` prints)."""
    from agreement.alt_test import EPSILON

    eps = EPSILON if epsilon is None else epsilon
    fi = load_field(store, project, field)
    rows = [
        version_row(fi, v, n_resamples=n_resamples, seed=seed, epsilon=eps)
        for v in fi.versions
        if relevant(fi.results[v.signature], fi.field)
    ]
    return {
        "project": project,
        "kind": fi.inputs.kind.name,
        "field": fi.field,
        "field_type": fi.field_type,
        "fields": fi.fields,
        "headline": HEADLINE.get(fi.field_type, "pearson"),
        "versions": rows,
        "judge_vs_judge": judge_vs_judge(
            fi, HEADLINE.get(fi.field_type, "pearson"), n_resamples=n_resamples, seed=seed
        ),
        "meta": {
            "n_resamples": n_resamples,
            "seed": seed,
            "ci": "95% percentile bootstrap over items",
            "split": fi.split_rule,
            "epsilon": eps,
            "n_items_total": fi.inputs.meta["n_items_total"],
            "n_gold_items": fi.inputs.meta["n_gold_items"],
        },
    }
