"""Reliability and bias probes of one version, read from its stored results.

Where the numbers come from: ``details["samples"]`` (one value per sample, or a dict
holding the field) for self-consistency, ``details["probability"]`` (0..1) for
calibration, the item's judged text for length bias, a probe run of the same version
(``probe: swap`` / ``reverse_options`` in its settings, or an older run with
``swap_texts: true``) for the position swap and the option order, the ego-centric
bias counts of :mod:`agreement.bias`, and the robustness figures of
:mod:`alignment.robustness` (injection probe runs, the bias scan of the residual).
"""

from __future__ import annotations

import copy
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agreement import judge_probes
from agreement.alt_test import AltTestResult, Q, alt_test
from agreement.label_judge import confidence_calibration
from alignment.human_ceiling import human_ceiling
from alignment.robustness import injection, scan
from alignment.scores import field_scores, per_item
from alignment.self_consistency import alpha_with_ci, people_matrix, self_consistency_figures
from alignment.versions import Version

if TYPE_CHECKING:
    from agreement.results import Bias
    from alignment.inputs import FieldInputs

#: Item fields holding the judged text, by kind, in the order they are looked for.
TEXT_FIELDS = ("response", "text", "predicted", "explanation", "utterance")


def sample_value(sample: Any, field: str) -> float | None:
    """One sample's value of ``field`` (a number, or a dict with the field or a score)."""
    if isinstance(sample, Real) and not isinstance(sample, bool):
        return float(sample)
    if isinstance(sample, bool):
        return float(sample)
    if isinstance(sample, dict):
        for value in (
            sample.get(field),
            (sample.get("scores") or {}).get(field),
            sample.get("score"),
        ):
            if isinstance(value, Real):
                return float(value)
    return None


def _self_consistency(
    fi: FieldInputs, v: Version, kept: pd.DataFrame, n_resamples: int, seed: int
) -> dict[str, Any]:
    units = []
    # one result an item: a re-run of the same signature (its samples from the cache)
    # stores the same samples again, which are not new draws
    ok = kept[kept["status"] == "ok"].drop_duplicates("item_id", keep="last")
    for details in ok["details"]:
        samples = details.get("samples")
        if isinstance(samples, list):
            values = [x for x in (sample_value(s, fi.field) for s in samples) if x is not None]
            units.append(values)
    excluded = frozenset(v.excluded)
    people = fi.labels[~fi.labels["item_id"].isin(excluded)]
    level = "nominal" if fi.binary else "interval"
    # the same people for every version with the same exclusions: one bootstrap for all
    people_alpha = fi.shared(
        ("people_alpha", excluded, n_resamples, seed),
        lambda: alpha_with_ci(people_matrix(people), level, n_resamples, seed),
    )
    people_alpha = copy.deepcopy(people_alpha)  # each version's document owns its copy
    return {
        **judge_probes.self_consistency(units, fi.binary),
        **self_consistency_figures(
            units,
            people,
            discrete=fi.binary,
            n_resamples=n_resamples,
            seed=seed,
            people_alpha=people_alpha,
        ),
    }


def _calibration(fi: FieldInputs, kept: pd.DataFrame) -> dict[str, Any]:
    if not fi.binary:
        return {"n": 0, "reason": "calibration is measured on a binary field"}
    ok = kept[kept["status"] == "ok"]
    prob = pd.Series(
        [d.get("probability") for d in ok["details"]], index=ok["item_id"].to_numpy(object)
    )
    prob = pd.to_numeric(prob, errors="coerce").dropna()
    if prob.empty:
        return {"n": 0, "reason": "the judge gives no probability"}
    prob = prob.groupby(level=0).mean()
    gold = fi.dense.majority[fi.space.codes(prob.index)]
    has = ~np.isnan(gold)
    p, y = prob.to_numpy(float)[has], gold[has]
    out = judge_probes.calibration(p, y)
    # Potato's definition beside it: confidence in its own answer (max(p, 1 - p)) against
    # whether that answer (p >= 0.5) equals the human majority
    own = confidence_calibration(np.maximum(p, 1 - p), (p >= 0.5) == (y >= 0.5))
    out["own_answer"] = {k: own[k] for k in ("n", "ece", "definition") if k in own}
    return out


def _lengths(fi: FieldInputs, item_ids: pd.Index) -> tuple[pd.Series, str | None]:
    found, name = fi.shared("item_lengths", lambda: _item_lengths(fi))
    if name is None:
        return pd.Series(dtype=float), None
    return found.reindex(item_ids), name


def _item_lengths(fi: FieldInputs) -> tuple[pd.Series, str | None]:
    """Each item's length of the first judged text field the items have (once per field's
    inputs: every version measures the same texts)."""
    items = fi.inputs.items.set_index("item_id")["fields"]
    for name in TEXT_FIELDS:
        found = {
            i: len(str(f[name]))
            for i, f in items.items()
            if isinstance(f, dict) and isinstance(f.get(name), str)
        }
        if found:
            return pd.Series(found), name
    return pd.Series(dtype=float), None


def _length_bias(fi: FieldInputs, means: pd.Series, n_resamples: int, seed: int) -> dict[str, Any]:
    human = pd.Series(fi.dense.mean[fi.space.codes(means.index)], index=means.index)
    residual = (means - human).dropna()
    length, text = _lengths(fi, residual.index)
    if text is None:
        return {"n": 0, "reason": "the kind's items have no judged text to measure"}
    keep = length.notna()
    out = judge_probes.length_bias(
        residual[keep].to_numpy(float),
        length[keep].to_numpy(float),
        n_resamples=n_resamples,
        seed=seed,
    )
    return {"text_field": text, **out}


def _alike(a: Version, b: Version) -> bool:
    return (a.evaluator, a.version, a.model) == (b.evaluator, b.version, b.model) and (
        a.plain_settings() == b.plain_settings()
    )


def swap_partner(v: Version, versions: list[Version]) -> Version | None:
    """The version's run with the texts exchanged (or, for a swapped run, the original);
    a swap probe run is preferred over an older version saved with ``swap_texts``."""
    found = [o for o in versions if o is not v and o.swapped != v.swapped and _alike(o, v)]
    found.sort(key=lambda o: o.probe != "swap")
    return found[0] if found else None


def options_partner(v: Version, versions: list[Version]) -> Version | None:
    """The version's ``reverse_options`` probe run, if one was made."""
    for other in versions:
        if other.probe == "reverse_options" and v.probe is None and _alike(other, v):
            return other
    return None


def changed_share(
    fi: FieldInputs, v: Version, partner: Version | None, means: pd.Series, missing: str
) -> dict[str, Any]:
    """Share of the items whose decision or score the probe run ``partner`` changed."""
    if partner is None:
        return {"n": 0, "reason": missing}
    excluded = set(v.excluded) | set(partner.excluded)
    other = per_item(field_scores(fi.results[partner.signature], fi.field, excluded))
    mine = means.drop(list(excluded), errors="ignore")
    plain, probed = (other, mine) if v.swapped else (mine, other)
    out = judge_probes.position_swap(plain.to_dict(), probed.to_dict(), fi.binary)
    return {"partner": partner.label, **out}


def _position_swap(fi: FieldInputs, v: Version, means: pd.Series) -> dict[str, Any]:
    return changed_share(fi, v, swap_partner(v, fi.versions), means, "no swapped run")


def _option_order(fi: FieldInputs, v: Version, means: pd.Series) -> dict[str, Any]:
    partner = options_partner(v, fi.versions)
    return changed_share(fi, v, partner, means, "no reverse_options probe run")


def _alt_test(fi: FieldInputs, v: Version, means: pd.Series, epsilon: float) -> dict[str, Any]:
    if fi.scale is not None and len(means):
        lo, hi = fi.scale
        if means.min() < lo - 1e-9 or means.max() > hi + 1e-9:
            why = (
                f"the judge's scores are not on the field's scale {lo:g}..{hi:g}: "
                "it cannot stand in for an annotator there"
            )
            return AltTestResult(None, None, None, epsilon, Q, reason=why).to_dict()
    labels = fi.labels[~fi.labels["item_id"].isin(set(v.excluded))]
    judge = means.round().clip(0, 1) if fi.binary else means
    return alt_test(judge, labels, discrete=fi.binary, epsilon=epsilon).to_dict()


def _recalibration(fi: FieldInputs, kept: pd.DataFrame, means: pd.Series, seed: int) -> Any:
    """Platt / isotonic maps of the judge's P(yes) (or its scores) onto the human scale,
    cross-fitted: raw and calibrated figures side by side."""
    from agreement.recalibration import recalibrated

    x = means
    if fi.binary:
        ok = kept[kept["status"] == "ok"]
        prob = pd.to_numeric(
            pd.Series([d.get("probability") for d in ok["details"]], index=ok["item_id"]),
            errors="coerce",
        ).dropna()
        if not prob.empty:
            x = prob.groupby(level=0).mean()
    ref = fi.dense.majority if fi.binary else fi.dense.mean
    y = ref[fi.space.codes(x.index)]
    has = ~np.isnan(y)
    out = recalibrated(x.to_numpy(float)[has], y[has], binary=fi.binary, seed=seed)
    out["input"] = "P(yes)" if fi.binary and x is not means else "score"
    return out


def probes(
    fi: FieldInputs,
    v: Version,
    kept: pd.DataFrame,
    means: pd.Series,
    *,
    bias: Bias | None,
    n_resamples: int,
    seed: int,
    epsilon: float,
) -> dict[str, Any]:
    """Every probe of one version (few-shot items already left out of ``kept``/``means``)."""
    return {
        "self_consistency": _self_consistency(fi, v, kept, n_resamples, seed),
        "calibration": _calibration(fi, kept),
        "length_bias": _length_bias(fi, means, n_resamples, seed),
        "position_swap": _position_swap(fi, v, means),
        "option_order": _option_order(fi, v, means),
        "ego_bias": bias.to_dict()
        if bias is not None
        else {"reason": "bias is counted on a graded field with a known scale"},
        "alt_test": _alt_test(fi, v, means, epsilon),
        "human_ceiling": human_ceiling(
            means,
            fi.labels[~fi.labels["item_id"].isin(set(v.excluded))],
            ordered=True,
            weights=None if fi.binary else "quadratic",
        ),
        "recalibration": _recalibration(fi, kept, means, seed),
        "injection": injection(fi, v, means),
        "bias_scan": scan(fi, means),
    }
