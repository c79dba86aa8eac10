"""A pairwise judge over a declared kind asked in both orders (the version's plain run,
then its swap probe run) against the scripted server, reported as MT-Bench does:
position consistency and bias, the conservative verdict, agreement with people's choices
with and without ties, each with n and a Wilson interval."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from agreement.pairwise_judge import (
    agreement_with_people,
    conservative_verdicts,
    position_consistency,
)
from annotation_store import Store
from commands import main
from tests.support.kind_examples import EXAMPLES, example_project
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()

PEOPLE = ("ann1", "ann2", "ann3")
CHOICES = {
    "p1": ("answer_a", "answer_a", "tie"),
    "p2": ("answer_a", "answer_b", "answer_a"),
    "p3": ("answer_b", "answer_a", "answer_a"),
    "p4": ("answer_a", "tie", "answer_b"),
}
#: What the scripted judge answers, by the position it names, per item: p1 names the
#: text of answer_a wherever it is shown; p2 always the first shown, p4 always the
#: second; p3 always a tie.
REQUESTS = {"reverse a list": "p1", "prime number": "p2", "synonym": "p3", "Kenya": "p4"}


def _items() -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (EXAMPLES / "pairwise_preference_items.jsonl").open()]
    return {r["item_id"]: r for r in rows}


def _judge(request: dict[str, Any]) -> Reply:
    text = "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")
    item = next(i for key, i in REQUESTS.items() if key in text)
    shown_first = re.search(r"Answer A:\n(.*)", text).group(1).strip()
    swapped = shown_first == _items()[item]["answer_b"].strip()
    answer = {
        "p1": "answer_b" if swapped else "answer_a",
        "p2": "answer_a",
        "p3": "tie",
        "p4": "answer_b",
    }[item]
    return Reply(content=json.dumps({"explanation": "compared both", "answer": answer}))


def wilson(k: int, n: int) -> list[float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


@pytest.fixture
def pref(sqlite_url: str) -> str:
    store = Store(sqlite_url)
    example_project(store, "pairwise_preference", "pref")
    for item, answers in CHOICES.items():
        for who, choice in zip(PEOPLE, answers, strict=True):
            value = {"choice": choice, "shown": ["answer_b", "answer_a"]}
            store.save_label("pref", item, who, "preference", value, status="submitted")
    store.close()
    return sqlite_url


def _doc(db: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    args = ["--db", db, "alignment", "pref", "--field", "preference", "--json"]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_pairwise_judge_in_both_orders_reports_mt_bench_figures(
    pref: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fast_llm.handler = _judge
    toml = str(EXAMPLES / "pairwise_judge.toml")
    assert main(["--db", pref, "judge", "create", "pref-judge", "--from", toml]) == 0
    base = ["--db", pref, "evaluate", "pref", "--evaluator", "judge:pref-judge"]
    assert main(base) == 0

    # the plain run alone: its verdicts against the people's choices
    [row] = _doc(pref, capsys)["versions"]
    assert row["verdict"] == "plain run only (no swap probe run yet)"
    assert row["position"]["reason"].startswith("no swap probe run")
    # verdicts a, a, tie, b: 2 + 2 + 0 + 1 of 12 votes; without ties 2/2 + 2/3 + 1/2
    plain = row["agreement"]
    assert (plain["with_ties"]["k"], plain["with_ties"]["n"]) == (5, 12)
    assert (plain["without_ties"]["k"], plain["without_ties"]["n"]) == (5, 7)

    assert main([*base, "--probe", "swap"]) == 0
    swapped_prompts = [m["content"] for r in fast_llm.requests[4:] for m in r["messages"]]
    assert any("Answer A:\nMombasa." in t for t in swapped_prompts)

    store = Store(pref)
    runs = sorted((r for r in store.runs("pref")), key=lambda r: r.id)
    assert runs[1].signature["settings"]["probe"] == "swap"
    assert [j.version for j in store.judge_versions("pref-judge")] == [1]  # no new version
    stored = {r.item_id: r for r in store.run_results(runs[1].id)}
    # p1 was asked (B, A) and named position B: stored by content as answer_a
    assert stored["p1"].details["answer"] == "answer_a"
    assert stored["p1"].details["answer_as_shown"] == "answer_b"
    assert stored["p2"].details["answer"] == "answer_b"
    assert "answer_as_shown" not in stored["p3"].details
    store.close()

    doc = _doc(pref, capsys)
    assert (doc["field_type"], doc["outputs"]) == ("pairwise", ["answer_a", "answer_b"])
    [row] = doc["versions"]  # the probe run is no row of its own
    pos = row["position"]
    assert pos["partner"] == "judge:pref-judge v1 (probe: swap)"
    assert pos["n"] == 4
    assert (pos["consistency"]["k"], pos["consistency"]["value"]) == (2, 0.5)
    assert pos["consistency"]["ci"] == pytest.approx(wilson(2, 4))
    assert (pos["biased_first"]["k"], pos["biased_second"]["k"]) == (1, 1)
    assert pos["other_inconsistent"]["k"] == 0
    # conservative verdicts a, tie, tie, tie: 2 + 0 + 0 + 1 of 12 votes; without ties 2/2
    agree = row["agreement"]
    assert (agree["with_ties"]["k"], agree["with_ties"]["n"]) == (3, 12)
    assert agree["with_ties"]["value"] == pytest.approx(0.25)
    assert agree["with_ties"]["ci"] == pytest.approx(wilson(3, 12))
    assert (agree["without_ties"]["k"], agree["without_ties"]["n"]) == (2, 2)
    assert row["headline"]["value"] == pytest.approx(0.25) and row["headline"]["n"] == 12

    capsys.readouterr()
    assert main(["--db", pref, "alignment", "pref", "--field", "preference"]) == 0
    text = capsys.readouterr().out
    assert "position consistency 0.500 [0.150, 0.850] (n 4" in text
    assert "agreement with ties 0.250" in text and "(n 12 votes)" in text

    capsys.readouterr()
    card = ["--db", pref, "alignment", "pref", "--field", "preference", "--card", row["label"]]
    assert main(card) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no evaluation card for the pairwise question" in err

    # the report carries the same figures, in Markdown and HTML
    for name in ("report.md", "report.html"):
        out = tmp_path / name
        assert main(["--db", pref, "report", "pref", "--out", str(out), "--resamples", "0"]) == 0
        body = out.read_text()
        assert "Judge versions against the people on" in body and "preference" in body
        assert "0.500 [0.150, 0.850] (n 4)" in body  # position consistency
        assert "0.250 [0.089, 0.532] (n 12)" in body  # agreement with ties
        assert "0.250 [0.046, 0.699] (n 4)" in body  # first position both times


def test_mt_bench_figures_match_potatos_flip_and_first_position_rates() -> None:
    """Potato 2.12.1's position-bias summary on the seeded pairwise judge
    (tests/data/peers/potato_judge.json): its flip rate is 1 - consistency and its
    first-position rates are the per-order shares of verdicts naming the first shown."""
    from tests.test_potato_judge_reference import DATA, REF

    d, ref = DATA["pairwise40"], REF["pairwise40"]
    ours = position_consistency(d["forward"], d["reversed"], "answer_a", "answer_b")
    assert ours["n"] == ref["n"] == 40
    assert ours["n"] - ours["consistency"]["k"] == ref["flips"]
    assert round(1 - ours["consistency"]["value"], 4) == ref["flip_rate"]
    first_ab = sum(v == "answer_a" for v in d["forward"].values()) / 40
    first_ba = sum(v == "answer_b" for v in d["reversed"].values()) / 40
    assert first_ab == pytest.approx(ref["first_position_rate"]["configured_order"])
    assert first_ba == pytest.approx(ref["first_position_rate"]["reversed_order"])


def test_agreement_without_ties_leaves_out_pairs_with_a_tie_on_either_side() -> None:
    verdicts = conservative_verdicts(
        {"x": "answer_a", "y": "answer_b", "z": "tie"},
        {"x": "answer_a", "y": "answer_a", "z": "tie"},
    )
    assert verdicts == {"x": "answer_a", "y": "tie", "z": "tie"}
    votes = [("x", "answer_a"), ("x", "tie"), ("y", "tie"), ("z", "answer_b"), ("w", "tie")]
    out = agreement_with_people(verdicts, votes)
    assert (out["with_ties"]["k"], out["with_ties"]["n"]) == (2, 4)
    assert (out["without_ties"]["k"], out["without_ties"]["n"]) == (1, 1)
    empty = agreement_with_people({}, votes)
    assert empty["with_ties"]["value"] is None and empty["with_ties"]["reason"]
