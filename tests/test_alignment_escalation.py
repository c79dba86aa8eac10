"""Escalation with a guarantee (Trust or Escalate): the fixed-sequence test by hand, and
the CLI on the toy project with samples chosen so the threshold is known."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from alignment.escalation import fixed_sequence, min_items, upper_bound
from annotation_store import Store
from commands import main
from tests.alignment_fixtures import add_run, build_toy, item_ids, v2_score


def tail(e: int, n: int, a: float) -> float:
    """P(Bin(n, a) <= e), summed by hand."""
    return sum(math.comb(n, j) * a**j * (1 - a) ** (n - j) for j in range(e + 1))


def test_walk_passes_while_the_tail_is_small_and_stops_at_the_first_failure() -> None:
    # 30 sure items all agree; 10 unsure items, 5 of them disagree
    conf = np.array([1.0] * 30 + [0.5] * 10)
    agrees = np.array([True] * 30 + [True, False] * 5)
    e = fixed_sequence(conf, agrees, 0.1, 0.05)
    first, second = e.tests
    assert (first.threshold, first.n, first.errors) == (1.0, 30, 0)
    assert first.p == pytest.approx(0.9**30)  # 0.0424 <= 0.05: passes
    assert first.upper_bound == pytest.approx(1 - 0.05 ** (1 / 30))  # 0.0950 <= 0.1
    assert (second.threshold, second.n, second.errors) == (0.5, 40, 5)
    assert second.p == pytest.approx(tail(5, 40, 0.1)) and not second.passed
    assert e.threshold == 0.51  # the last grid point before the unsure items come in
    assert (e.n, e.kept, e.agree, e.coverage) == (40, 30, 30, 0.75)
    low, high = e.to_dict()["agreement"]["ci"]
    assert low == pytest.approx(0.025 ** (1 / 30)) and high == 1.0  # exact interval, 30/30


def test_a_failure_at_the_top_stops_the_walk_even_if_a_bigger_set_would_pass() -> None:
    conf = np.array([1.0] * 40 + [0.8] * 400)
    agrees = np.array([True] * 32 + [False] * 8 + [True] * 400)
    e = fixed_sequence(conf, agrees, 0.1, 0.05)
    assert len(e.tests) == 1 and e.tests[0].p == pytest.approx(tail(8, 40, 0.1))  # 0.95
    assert tail(8, 440, 0.1) <= 0.05  # the set at 0.80 would have passed
    assert e.threshold is None and e.kept == 0 and e.coverage == 0
    assert "8 of 40 kept items disagree" in e.reason


def test_too_few_items_to_pass_are_passed_over_and_say_so() -> None:
    # 0.9^29 = 0.047 <= 0.05 < 0.9^28: fewer than 29 items cannot pass; they test nothing
    conf = np.array([1.0] * 28 + [0.7] * 20)
    e = fixed_sequence(conf, np.ones(48, bool), 0.1, 0.05)
    assert [(t.threshold, t.n) for t in e.tests] == [(0.7, 48)]
    assert e.threshold == 0.0 and e.kept == 48
    e = fixed_sequence(np.ones(28), np.ones(28, bool), 0.1, 0.05)
    assert e.tests == () and e.threshold is None
    assert (
        "keeps the 29 calibration items that passing needs (the most any keeps is 28)" in e.reason
    )


def test_items_without_confidence_are_never_kept_and_nothing_to_test_says_why() -> None:
    conf = np.array([np.nan] * 5 + [1.0] * 40)
    e = fixed_sequence(conf, np.ones(45, bool), 0.1, 0.05)
    assert e.threshold == 0.0 and e.kept == 40 and e.n == 45
    assert fixed_sequence(np.array([]), np.array([]), 0.1, 0.05).reason.startswith("no item")
    assert "the most any keeps is 0" in fixed_sequence(np.array([np.nan]), np.array([True])).reason


@pytest.mark.parametrize(("errors", "n"), [(0, 29), (0, 28), (3, 60), (4, 60), (10, 200)])
def test_upper_bound_is_below_alpha_exactly_when_the_tail_is_below_delta(
    errors: int, n: int
) -> None:
    assert (upper_bound(errors, n, 0.05) <= 0.1) == (tail(errors, n, 0.1) <= 0.05)
    assert min_items(0.1, 0.05) == 29


SURE_WRONG = {3, 4, 9, 18, 27, 35, 36}  # two of three samples agree on these
NO_SAMPLES = 5


def build_samples(store: Store) -> None:
    """judge:toy v3 answers like v2; its 3 samples are unanimous except on SURE_WRONG
    (which holds every item where it disagrees with the people's majority: 9, 18, 27,
    36 its own errors, 35 the people's), and item 5 has none."""
    build_toy(store, swap=False)
    details = {}
    for k, i in enumerate(item_ids()):
        s = v2_score(k)
        if k != NO_SAMPLES:
            details[i] = {"samples": [s, 1 - s, s] if k in SURE_WRONG else [s] * 3}
    add_run(store, "3", {i: v2_score(k) for k, i in enumerate(item_ids())}, details=details)


def test_cli_escalates_the_unsure_items_with_the_threshold_found_by_hand(
    store: Store, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    build_samples(store)
    args = ["--db", sqlite_url, "alignment", "toy", "--escalate", "judge:toy v3", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    # 40 items with a people's majority; 32 unanimous, all agreeing: 0.9^32 = 0.034 passes;
    # at 0.66 the 7 two-of-three items join (5 disagree among 39): the walk stops
    assert doc["n"] == 40 and doc["kept"] == 32 and doc["threshold"] == 0.67
    assert doc["tests"][0]["p"] == pytest.approx(0.9**32)
    assert doc["tests"][1]["n"] == 39 and doc["tests"][1]["errors"] == 5
    assert doc["tests"][1]["p"] == pytest.approx(tail(5, 39, 0.1))
    assert doc["coverage"] == pytest.approx(0.8)
    assert doc["agreement"]["value"] == 1.0 and doc["agreement"]["n"] == 32
    sent = {x["item_id"]: x["confidence"] for x in doc["escalated"]}
    assert set(sent) == {f"i{k:02d}" for k in SURE_WRONG | {NO_SAMPLES}}
    assert sent["i05"] is None and sent["i09"] == pytest.approx(2 / 3)
    assert "at least 90%" in doc["guarantee"] and "95%" in doc["guarantee"]
    main(args[:-1])
    text = capsys.readouterr().out
    assert "threshold 0.670, coverage 0.800 (n 40 calibration items)" in text
    assert "to people: 8 of 40 judged items: i03, i04, i05, i09" in text


def test_cli_says_in_one_line_why_a_source_gives_no_confidence(
    store: Store, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    build_samples(store)
    base = ["--db", sqlite_url, "alignment", "toy", "--json", "--escalate"]
    main([*base, "judge:toy v1"])  # one answer per item, no samples
    doc = json.loads(capsys.readouterr().out)
    assert doc["threshold"] is None and "one answer per item" in doc["reason"]
    assert len(doc["escalated"]) == doc["n_judged"] == 39  # i39 failed
    main([*base, "judge:toy v3", "--confidence", "logprob"])
    assert "log-probabilities" in json.loads(capsys.readouterr().out)["reason"]
    # v2 states P(yes) 0.9 / 0.2: confidence 0.9 or 0.8
    main([*base, "judge:toy v2", "--confidence", "verbal", "--alpha", "0.3"])
    doc = json.loads(capsys.readouterr().out)
    # 38 items (few-shot items out); the 19 "yes" items at 0.9 (at alpha 0.3, 9 items can
    # pass) hold 3 disagreements (18 and 36 wrongly said yes; on 35 the people's majority
    # errs):
    # P(Bin(19, 0.3) <= 3) = 0.133 > 0.05 stops the walk
    assert doc["n"] == 38 and len(doc["tests"]) == 1
    assert (doc["tests"][0]["threshold"], doc["tests"][0]["n"], doc["tests"][0]["errors"]) == (
        0.9,
        19,
        3,
    )
    assert doc["tests"][0]["p"] == pytest.approx(tail(3, 19, 0.3)) and doc["threshold"] is None
    assert main(["--db", sqlite_url, "alignment", "toy", "--alpha", "0.1"]) == 2
    assert "go with --escalate" in capsys.readouterr().err


def test_alignment_page_card_shows_the_guarantee_and_queues_the_escalated_items(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    from studies.assignments import assignments_frame
    from tests.support.apptest import open_app

    build_samples(store)
    store.ensure_annotator("admin", role="admin")
    store.ensure_annotator("dana", role="annotator")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=180)
    at.selectbox(key="escalate_version").set_value("judge:toy v3").run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Threshold"] == "0.670" and metrics["Coverage"] == "80%"
    assert metrics["Agreement on kept items"] == "1.000"
    assert any("keeps 32 of 40 calibration items" in i.value for i in at.info)
    sent = [d.value for d in at.dataframe if "people" in d.value.columns]
    assert len(sent) == 1 and len(sent[0]) == 8
    at.selectbox(key="escalate_annotator").set_value("dana").run()
    at.button(key="escalate_queue").click().run()
    queued = {r["item_id"] for r in assignments_frame(store, "toy") if r["annotator"] == "dana"}
    assert queued == {f"i{k:02d}" for k in SURE_WRONG | {NO_SAMPLES}}
