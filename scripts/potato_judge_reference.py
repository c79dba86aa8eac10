"""Seeded judge data and Potato's own figures on it, for tests/test_potato_judge_reference.py.

Runs in .venv-peers only (scripts/make_peer_fixtures.sh installs potato-annotation 2.12.1
there; its pins clash with ours). The workbench and its tests never import Potato: they
read the JSON this writes (the data and Potato's reference values) and compare their own
figures with it.

    potato_judge_reference.py OUT.json

The data (stdlib ``random`` with a fixed seed, so the file is reproducible):

- ``binary60``: 60 items, four annotators (errors on disjoint items, so the majority is
  never tied; one annotator labels 45 items), a judge giving P(yes) as the vote share of
  10 samples (values on the bin edges on purpose), and the judged text's length;
- ``likert40``: 40 items rated 1-5 by four annotators (one rates only 25, so the alt-test
  leaves it out), a judge's 1-5 score with three samples per item, and the text's length;
- ``label60``: a three-label judge with five samples per item against three annotators;
- ``swap60``: a binary judge's decisions with the two texts in order and exchanged;
- ``pairwise40``: a pairwise judge's verdicts (``answer_a`` / ``answer_b`` / ``tie``, by
  content) asked in both orders.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

SEED = 2812
EPSILONS = (0.2, 0.1)


def _binary60(rng: random.Random) -> dict[str, Any]:
    items = [f"b{k:02d}" for k in range(60)]
    truth = {i: rng.randint(0, 1) for i in items}
    people: dict[str, dict[str, int]] = {}
    for who, (err, skip) in {
        "ann": (1, None),
        "bob": (3, None),
        "cat": (5, None),
        "dan": (7, 4),
    }.items():
        labels = {}
        for k, i in enumerate(items):
            if skip is not None and k % skip == 0:
                continue
            labels[i] = 1 - truth[i] if k % 10 == err else truth[i]
        people[who] = labels
    samples, lengths = {}, {}
    for k, i in enumerate(items):
        # Mostly right, sometimes confidently wrong; every tenth share is possible.
        yes = rng.choice([7, 8, 9, 10, 10, 6]) if truth[i] else rng.choice([0, 0, 1, 2, 3, 4])
        if k % 11 == 4:
            yes = 10 - yes
        samples[i] = [1] * yes + [0] * (10 - yes)
        rng.shuffle(samples[i])
        lengths[i] = rng.randint(40, 400) + (80 if yes >= 5 else 0)
    return {"people": people, "samples": samples, "length": lengths}


def _likert40(rng: random.Random) -> dict[str, Any]:
    items = [f"l{k:02d}" for k in range(40)]
    truth = {i: rng.randint(1, 5) for i in items}
    people: dict[str, dict[str, int]] = {}
    for who, n in {"ann": 40, "bob": 40, "cat": 40, "dan": 25}.items():
        people[who] = {
            i: min(5, max(1, truth[i] + rng.choice([-1, 0, 0, 0, 1]))) for i in items[:n]
        }
    samples, lengths = {}, {}
    for i in items:
        base = min(5, max(1, truth[i] + rng.choice([-1, 0, 0, 1, 1])))
        samples[i] = [min(5, max(1, base + rng.choice([0, 0, 0, 1, -1]))) for _ in range(3)]
        lengths[i] = rng.randint(30, 500)
    return {"people": people, "samples": samples, "length": lengths}


LABELS = ["praise", "complaint", "question"]


def _label60(rng: random.Random) -> dict[str, Any]:
    items = [f"c{k:02d}" for k in range(60)]
    truth = {i: rng.choice(LABELS) for i in items}
    people = {
        who: {i: (rng.choice(LABELS) if k % 9 == err else truth[i]) for k, i in enumerate(items)}
        for who, err in (("ann", 2), ("bob", 5), ("cat", 8))
    }
    samples = {}
    for i in items:
        # Three or more of five samples agree: the modal label is never tied.
        right = rng.choice([5, 5, 4, 3, 3])
        wrong = [c for c in LABELS if c != truth[i]]
        samples[i] = [truth[i]] * right + [rng.choice(wrong) for _ in range(5 - right)]
    return {"people": people, "samples": samples, "labels": LABELS}


def _swap60(rng: random.Random) -> dict[str, Any]:
    plain = {f"s{k:02d}": rng.randint(0, 1) for k in range(60)}
    swapped = {i: (1 - v if rng.random() < 0.2 else v) for i, v in plain.items()}
    return {"plain": plain, "swapped": swapped}


def _pairwise40(rng: random.Random) -> dict[str, Any]:
    """Verdicts by content: ``forward`` asked A then B, ``reversed`` asked B then A (the
    reply already mapped back to the answer it names)."""
    forward, backward, people = {}, {}, {}
    for k in range(40):
        i = f"p{k:02d}"
        best = rng.choice(["answer_a", "answer_b", "tie"])
        forward[i] = best if rng.random() < 0.75 else "answer_a"
        # A judge that leans to whatever is shown first: in the reversed order that is B.
        backward[i] = best if rng.random() < 0.7 else "answer_b"
        people[i] = best if rng.random() < 0.8 else rng.choice(["answer_a", "answer_b", "tie"])
    return {"forward": forward, "reversed": backward, "people": people}


def make_data() -> dict[str, Any]:
    """The seeded data set (the same on every run)."""
    rng = random.Random(SEED)
    return {
        "binary60": _binary60(rng),
        "likert40": _likert40(rng),
        "label60": _label60(rng),
        "swap60": _swap60(rng),
        "pairwise40": _pairwise40(rng),
    }


def _majority(people: dict[str, dict[str, Any]], item: str) -> Any:
    from collections import Counter

    counts = Counter(str(p[item]) for p in people.values() if item in p)
    (top, n), *rest = counts.most_common()
    if rest and rest[0][1] == n:
        return None
    return next(p[item] for p in people.values() if item in p and str(p[item]) == top)


def _alt(llm: dict[str, Any], people: dict[str, dict[str, Any]], metric: str) -> dict:
    from potato.server_utils.alt_test import alt_test

    out = {}
    for eps in EPSILONS:
        res = alt_test(llm, people, epsilon=eps, metric=metric)
        out[str(eps)] = res.to_dict()
        res = alt_test(llm, people, epsilon=eps, metric=metric, test="wilcoxon")
        out[f"wilcoxon {eps}"] = res.to_dict()
    return out


def _self_consistency(samples: dict[str, list[Any]], level: str) -> dict[str, Any]:
    from potato.judge_calibration.aggregation import _aggregate_categorical
    from potato.server_utils.iaa.alpha import krippendorff_alpha

    rows = [(f"s{j}", i, v) for i, s in samples.items() for j, v in enumerate(s)]
    unanimous = [_aggregate_categorical(s, len(s))[1] == 1.0 for s in samples.values()]
    return {
        "n": len(samples),
        "unanimous": sum(unanimous) / len(unanimous),
        "alpha": krippendorff_alpha(rows, level=level),
    }


def reference_binary(d: dict[str, Any]) -> dict[str, Any]:
    from potato.labeling_engine.calibrate import metrics
    from potato.server_utils.iaa.nominal import cohen_kappa
    from potato.server_utils.iaa.ordinal import spearman_rho

    people, samples = d["people"], d["samples"]
    items = sorted(samples)
    prob = {i: sum(samples[i]) / len(samples[i]) for i in items}
    major = {i: _majority(people, i) for i in items}
    decision = [int(prob[i] >= 0.5) for i in items]
    gold = [major[i] for i in items]
    p = [prob[i] for i in items]
    own = [max(x, 1 - x) for x in p]
    correct = [dec == g for dec, g in zip(decision, gold, strict=True)]
    mean = {i: sum(x[i] for x in people.values() if i in x) for i in items}
    count = {i: sum(1 for x in people.values() if i in x) for i in items}
    residual = [prob[i] - mean[i] / count[i] for i in items]
    return {
        "kappa": cohen_kappa(gold, decision),
        "n": len(items),
        # P(yes) against the human majority (the workbench's definition)...
        "brier": metrics.brier_score(p, gold),
        "ece_p_yes": metrics.expected_calibration_error(p, gold, 10),
        "bins_p_yes": metrics.reliability_bins(p, gold, 10),
        # ...and Potato's: confidence in its own answer against correctness.
        "ece_own_answer": metrics.expected_calibration_error(own, correct, 10),
        "length_spearman": spearman_rho(residual, [d["length"][i] for i in items]),
        # The alignment table's residual: the judge's decision minus the people's mean.
        "length_spearman_decision": spearman_rho(
            [dec - mean[i] / count[i] for dec, i in zip(decision, items, strict=True)],
            [d["length"][i] for i in items],
        ),
        "self_consistency": _self_consistency(samples, "nominal"),
        "alt_test": _alt({i: int(prob[i] >= 0.5) for i in items}, people, "accuracy"),
    }


def reference_likert(d: dict[str, Any]) -> dict[str, Any]:
    from potato.server_utils.iaa.continuous import pearson_r
    from potato.server_utils.iaa.ordinal import spearman_rho

    people, samples = d["people"], d["samples"]
    items = sorted(samples)
    judge = {i: sum(samples[i]) / len(samples[i]) for i in items}
    human = {
        i: sum(p[i] for p in people.values() if i in p) / sum(1 for p in people.values() if i in p)
        for i in items
    }
    x, y = [judge[i] for i in items], [human[i] for i in items]
    residual = [a - b for a, b in zip(x, y, strict=True)]
    return {
        "n": len(items),
        "pearson": pearson_r(x, y),
        "spearman": spearman_rho(x, y),
        "length_spearman": spearman_rho(residual, [d["length"][i] for i in items]),
        "self_consistency": _self_consistency(samples, "interval"),
        "alt_test": _alt(judge, people, "neg_rmse"),
    }


def reference_labels(d: dict[str, Any]) -> dict[str, Any]:
    from potato.judge_calibration.aggregation import _aggregate_categorical
    from potato.labeling_engine.calibrate import metrics
    from potato.server_utils.iaa.nominal import cohen_kappa
    from potato.server_utils.judge_alignment import compute_alignment_from_pairs

    people, samples = d["people"], d["samples"]
    items = sorted(samples)
    modal = {i: _aggregate_categorical(samples[i], len(samples[i])) for i in items}
    major = {i: _majority(people, i) for i in items}
    kept = [i for i in items if major[i] is not None]
    pairs = [(i, major[i], modal[i][0], modal[i][1], "") for i in kept]
    aligned = compute_alignment_from_pairs({"label": pairs})["label"]
    conf = [modal[i][1] for i in kept]
    correct = [modal[i][0] == major[i] for i in kept]
    return {
        "n": len(kept),
        "kappa": cohen_kappa([major[i] for i in kept], [modal[i][0] for i in kept]),
        "kappa_rounded": aligned["kappa"],
        "agreement_rate": aligned["agreement_rate"],
        "confusion": aligned["confusion"],
        "judge_label": {i: modal[i][0] for i in items},
        "ece": metrics.expected_calibration_error(conf, correct, 10),
        "brier": metrics.brier_score(conf, correct),
        "bins": metrics.reliability_bins(conf, correct, 10),
        "alt_test": _alt({i: modal[i][0] for i in items}, people, "accuracy"),
    }


def reference_swap(d: dict[str, Any]) -> dict[str, Any]:
    from potato.ai.position_bias import ProbeResult, summarize

    results = [
        ProbeResult(i, str(d["plain"][i]), str(d["swapped"][i]), ["1", "0"], ["0", "1"])
        for i in sorted(d["plain"])
    ]
    out = summarize(results)
    return {"n": out["n_usable"], "flips": out["swap"]["flips"], "flip_rate": out["flip_rate"]}


def reference_pairwise(d: dict[str, Any]) -> dict[str, Any]:
    from potato.ai.position_bias import ProbeResult, summarize

    ab, ba = ["answer_a", "answer_b", "tie"], ["answer_b", "answer_a", "tie"]
    results = [
        ProbeResult(i, d["forward"][i], d["reversed"][i], ab, ba) for i in sorted(d["forward"])
    ]
    out = summarize(results)
    return {
        "n": out["n_usable"],
        "flips": out["swap"]["flips"],
        "flip_rate": out["flip_rate"],
        "first_position_rate": out["first_position_rate"],
    }


def main(path: str) -> None:
    """Write the data and Potato's figures on it to ``path``."""
    from importlib.metadata import version

    data = make_data()
    reference = {
        "binary60": reference_binary(data["binary60"]),
        "likert40": reference_likert(data["likert40"]),
        "label60": reference_labels(data["label60"]),
        "swap60": reference_swap(data["swap60"]),
        "pairwise40": reference_pairwise(data["pairwise40"]),
    }
    out = {
        "potato": version("potato-annotation"),
        "seed": SEED,
        "data": data,
        "reference": reference,
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
