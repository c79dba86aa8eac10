"""Active selection: inclusion probabilities, the recorded sample, the ``active``
assignment strategy and the weighted estimates it leads to."""

from __future__ import annotations

import json

import numpy as np
import pytest

from annotation_store import StoreError
from commands import main
from estimates.active import active_mean
from estimates.selection import FLOOR, draw, inclusion_probabilities, uncertainty
from studies import assignments as asg
from studies.selection import draws_frame, record_draws
from tests.support.estimates_project import build


def test_probabilities_follow_uncertainty_and_sum_to_the_budget() -> None:
    f = np.array([0.5, 0.5, 0.9, 0.1, 1.0, 0.0])
    u, rule = uncertainty(f)
    assert rule == "judge uncertainty"
    assert u == pytest.approx([0.5, 0.5, 0.3, 0.3, 0.0, 0.0])
    pi = inclusion_probabilities(u, 3)
    assert pi.sum() == pytest.approx(3) and pi.max() <= 1
    # weights: 0.8 * u / mean(u) + 0.2 ; mean(u) = 1.6 / 6
    w = (1 - FLOOR) * u / (1.6 / 6) + FLOOR
    assert pi == pytest.approx(3 * w / w.sum())
    assert pi[4] > 0  # a confident judge still leaves a chance
    capped = inclusion_probabilities(np.array([10.0, 0.0, 0.0, 0.0]), 2)
    assert capped[0] == 1.0 and capped.sum() == pytest.approx(2)
    two = np.array([[0.0, 1.0], [0.5, 0.5], [0.2, np.nan]])
    u2, rule2 = uncertainty(two)
    assert rule2 == "disagreement" and u2[:2] == pytest.approx([0.5, 0.0])
    assert u2[2] == pytest.approx(0.25)  # one version only: the mean spread
    assert uncertainty(np.array([2.0, 5.0]))[1] == "uniform"
    with pytest.raises(ValueError, match="budget"):
        inclusion_probabilities(u, 0)


def test_selected_by_uncertainty_stays_unbiased() -> None:
    """Simulation: a judge probability f, truth ~ Bernoulli(f + 0.1) (the judge is biased),
    items drawn by its uncertainty; the weighted PPI++ interval covers the truth."""
    rng = np.random.default_rng(4)
    big_n, hits, ests = 1500, [], []
    for _ in range(300):
        f = rng.beta(2, 2, big_n)
        y_all = (rng.random(big_n) < np.clip(f + 0.1, 0, 1)).astype(float)
        pi = inclusion_probabilities(uncertainty(f)[0], 150)
        chosen = draw(pi, int(rng.integers(1 << 30)))
        e = active_mean(f, np.where(chosen, y_all, np.nan), pi)
        hits.append(abs(e.estimate - y_all.mean()) <= 1.96 * e.se)
        ests.append(e.estimate - y_all.mean())
    assert 0.92 <= np.mean(hits) <= 0.98
    assert abs(np.mean(ests)) < 0.005


def test_record_draws_is_all_or_nothing(any_store) -> None:
    store = any_store
    build(store, "p", n_items=20, n_labelled=0)
    assert record_draws(store, "p", {"i00000": (0.5, True), "i00001": (0.2, False)}, "t") == 1
    with pytest.raises(StoreError, match=r"\(0, 1\]"):
        record_draws(store, "p", {"i00000": (0.0, True)}, "t")
    with pytest.raises(StoreError, match="unknown items: nope"):
        record_draws(store, "p", {"nope": (0.5, True)}, "t")
    frame = draws_frame(store, "p").sort_values("item_id")
    assert frame.to_dict("list") == {
        "item_id": ["i00000", "i00001"],
        "probability": [0.5, 0.2],
        "selected": [True, False],
    }


def test_select_claim_label_estimate(store, sqlite_url, capsys) -> None:
    truth = build(store, "p", n_items=200, n_labelled=0, judge_accuracy=0.8)
    code = main(
        [
            "--db",
            sqlite_url,
            "select",
            "p",
            "--field",
            "label",
            "--evaluator",
            "toyjudge",
            "--budget",
            "40",
            "--seed",
            "3",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "assignment is now 'active'" in out
    assert store.project("p").settings["assignment"] == "active"
    draws = draws_frame(store, "p").set_index("item_id")
    drawn = set(draws.index[draws["selected"]])
    assert len(draws) == 200 and out.startswith(f"drew {len(drawn)} of 200")
    who = store.ensure_annotator("ann").name
    handed = []
    truth = truth.set_index("item_id")
    for _ in range(30):
        item = asg.claim_next(store, "p", who)
        handed.append(item)
        store.save_label("p", item, who, "label", int(truth.loc[item, "truth"]))
        asg.submit(store, "p", item, who, seconds=1.0)
    assert set(handed) <= drawn  # only drawn items are handed out
    code = main(
        [
            "--db",
            sqlite_url,
            "estimate",
            "p",
            "--field",
            "label",
            "--evaluator",
            "toyjudge",
            "--json",
        ]
    )
    g = json.loads(capsys.readouterr().out)["groups"][0]
    assert code == 0 and g["weighted"] and g["n_human"] == 30
    # by hand: drawn probabilities scaled by the share of the sample labelled (30 / drawn)
    ids = list(truth.index)
    y = np.array([truth.loc[i, "truth"] if i in handed else np.nan for i in ids])
    pi = draws.loc[ids, "probability"].to_numpy() * 30 / len(drawn)
    expected = active_mean(truth.loc[ids, "judge"].to_numpy(), y, pi)
    assert g["ppi"]["estimate"] == pytest.approx(expected.estimate, abs=1e-12)
    assert g["ppi"]["ci"] == pytest.approx(list(expected.ci), abs=1e-12)
    human = active_mean(truth.loc[ids, "judge"].to_numpy(), y, pi, lam=0.0)
    assert g["human"]["estimate"] == pytest.approx(human.estimate, abs=1e-12)


def test_select_bad_input_is_one_line(store, sqlite_url, capsys) -> None:
    build(store, "p", n_items=20, n_labelled=0)
    base = ["--db", sqlite_url, "select", "p", "--field", "label", "--evaluator"]
    assert main([*base, "toyjudge", "--budget", "0"]) != 0
    assert main([*base, "nope", "--budget", "5"]) != 0
    err = capsys.readouterr().err
    assert "--budget must be a whole number >= 1" in err and "no evaluator 'nope'" in err
    assert draws_frame(store, "p").empty
