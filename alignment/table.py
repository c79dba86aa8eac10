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
from agreement.measures import headline
from alignment.inputs import AlignmentError, FieldInputs, load_field
from alignment.judge_vs_judge import judge_vs_judge
from alignment.jury import jury_figures
from alignment.probes import probes
from alignment.row_head import row_head
from alignment.scores import field_scores, per_item, relevant
from alignment.versions import Version

if TYPE_CHECKING:
    from annotation_store import Store


def _headline(
    fi: FieldInputs, row: dict[str, Any], scores: pd.Series, n_resamples: int, seed: int
) -> dict[str, Any]:
    name = headline(fi.field_type)
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
    excluded = set(v.excluded)
    kept = results[~results["item_id"].isin(excluded)]
    scores = field_scores(results, fi.field, excluded)
    row: dict[str, Any] = row_head(v, kept)
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
        model_families=fi.inputs.settings.get("model_families"),
        round_item_means=fi.inputs.meta.get("run_averages", {}).get(v.signature) == "rounded",
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
    if (jury := jury_figures(fi, v, kept)) is not None:
        row["jury"] = jury
    return row


def alignment_table(
    store: Store,
    project: str,
    field: str | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    epsilon: float | None = None,
    inputs: FieldInputs | None = None,
) -> dict[str, Any]:
    """The alignment document of one field (what ``cli.py alignment --json`` prints); a
    categorical field's label judges are compared by :mod:`alignment.categorical`.
    ``inputs``: the field's inputs when the caller has loaded them (``load_field(store,
    project, field)``), so they are not read twice."""
    from agreement.alt_test import EPSILON

    eps = EPSILON if epsilon is None else epsilon
    try:
        fi = inputs if inputs is not None else load_field(store, project, field)
    except AlignmentError:
        from alignment.categorical import categorical_table

        doc = categorical_table(
            store, project, field, n_resamples=n_resamples, seed=seed, epsilon=eps
        )
        if doc is None:
            from alignment.pairwise import pairwise_table

            doc = pairwise_table(store, project, field)
        if doc is None:
            raise
        return doc
    rows = [
        version_row(fi, v, n_resamples=n_resamples, seed=seed, epsilon=eps)
        for v in fi.versions
        if v.probe is None and relevant(fi.results[v.signature], fi.field)
    ]
    return {
        "project": project,
        "kind": fi.inputs.kind.name,
        "field": fi.field,
        "field_type": fi.field_type,
        "fields": fi.fields,
        "headline": headline(fi.field_type),
        "versions": rows,
        "judge_vs_judge": judge_vs_judge(
            fi, headline(fi.field_type), n_resamples=n_resamples, seed=seed
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
