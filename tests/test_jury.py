"""Juries (PoLL): an evaluator made of other evaluators; aggregation by hand, the member
order drawn per item and stored, and the jury run and aligned like any judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotation_store import Store
from commands import main
from evaluators.registry import get_evaluator_class
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"
#: Which items each juror calls "not the same task" (0); every other item is 1.
SAYS_NO = {"A": (), "B": ("Set an alarm", "living room lights"), "C": ("living room lights",)}


def _jury_module() -> Any:
    import importlib

    return importlib.import_module(get_evaluator_class("jury").__module__)


def test_aggregation_by_hand() -> None:
    jury = _jury_module()
    assert jury.aggregate([1.0, 0.0, 1.0], "majority") == (1.0, False)
    assert jury.aggregate([0.0, 1.0], "majority") == (0.0, True)  # tie: the first in order
    assert jury.aggregate([1.0, 0.0], "majority") == (1.0, True)
    assert jury.aggregate([1.0, 0.0, 1.0], "mean")[0] == pytest.approx(2 / 3)
    assert jury.aggregate([0.2, 0.9, 0.5], "median") == (0.5, False)
    assert jury.aggregate([0.2, 0.9, 0.5, 0.7], "median")[0] == pytest.approx(0.6)
    order = jury.member_order(3, 0, "alarm")
    assert sorted(order) == [0, 1, 2] and order == jury.member_order(3, 0, "alarm")
    orders = {tuple(jury.member_order(3, 0, f"i{k}")) for k in range(30)}
    assert len(orders) > 1  # drawn per item, not one fixed order


def _handler(request: dict[str, Any]) -> Reply:
    text = "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")
    juror = next(j for j in SAYS_NO if f"Juror {j}:" in text)
    answer = 0 if any(w in text for w in SAYS_NO[juror]) else 1
    return Reply(content=json.dumps({"explanation": "read both", "answer": answer}))


def _create_jurors(demo: str, tmp_path: Path) -> None:
    for j in SAYS_NO:
        path = tmp_path / f"{j}.toml"
        path.write_text(
            TOML.read_text().replace("Do both describe", f"Juror {j}: do both describe")
        )
        assert (
            main(["--db", demo, "judge", "create", f"juror-{j.lower()}", "--from", str(path)]) == 0
        )


def _jury_run(store: Store, aggregate: str) -> dict[str, Any]:
    runs = [r for r in store.runs(PROJECT) if r.evaluator == "jury"]
    [run] = [r for r in runs if r.signature["settings"]["aggregate"] == aggregate]
    return {r.item_id: r for r in store.run_results(run.id)}


def test_a_jury_runs_like_any_judge_and_stores_its_members_order(
    demo: str, fast_llm: ScriptedLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jury = _jury_module()
    fast_llm.handler = _handler
    _create_jurors(demo, tmp_path)
    members = ["judge:juror-a", "judge:juror-b", "judge:juror-c"]
    base = ["--db", demo, "evaluate", PROJECT, "--evaluator", "jury", "--settings"]
    assert main([*base, json.dumps({"members": members})]) == 0
    assert fast_llm.calls == 18  # three jurors, six items
    assert main([*base, json.dumps({"members": members, "aggregate": "mean"})]) == 0
    assert fast_llm.calls == 18  # the jurors' replies come from the cache

    store = Store(demo)
    majority, mean = _jury_run(store, "majority"), _jury_run(store, "mean")
    # alarm: A 1, B 0, C 1; lights: A 1, B 0, C 0; the rest: all 1
    assert majority["alarm"].scores == {"match": 1.0} and majority["lights"].scores == {
        "match": 0.0
    }
    assert majority["dinner"].scores == {"match": 1.0}
    assert mean["alarm"].scores["match"] == pytest.approx(2 / 3)
    assert mean["lights"].scores["match"] == pytest.approx(1 / 3)
    labels = [f"{m} v1" for m in members]
    for item, res in majority.items():
        order = [labels[k] for k in jury.member_order(3, 0, item)]
        assert res.details["order"] == order
        assert [j["member"] for j in res.details["jurors"]] == order
    sig = next(r for r in store.runs(PROJECT) if r.evaluator == "jury").signature
    assert len(sig["settings"]["member_signatures"]) == 3
    assert sig["model"] == fast_llm.model
    store.close()

    capsys.readouterr()
    assert main(["--db", demo, "alignment", PROJECT, "--field", "match", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["versions"]
    juries = [r for r in rows if r["label"].startswith("jury v1")]
    [row] = [r for r in juries if r["jury"]["aggregate"] == "majority"]
    # people's majority: alarm 0, lights 0, the rest 1. Members alone: A errs on alarm and
    # lights (4/6), B on nothing (6/6), C on alarm (5/6); the jury errs on alarm (5/6).
    assert jury.member_order(3, 0, "alarm") == [0, 1, 2]  # A, B, C
    assert jury.member_order(3, 0, "lights") == [1, 2, 0]  # B, C, A
    # without A: alarm B 0 / C 1 ties to B (right): 6/6, gain 5/6 - 1;
    # without B: alarm 1 1 (wrong), lights C 0 / A 1 ties to C (right): 5/6, gain 0;
    # without C: alarm A 1 / B 0 ties to A (wrong), lights B 0 (right): 5/6, gain 0
    j = row["jury"]
    assert j["jury"] == {"value": pytest.approx(5 / 6), "n": 6}
    got = {m["member"]: (m["value"], m["gain"], m["n"]) for m in j["members"]}
    assert got == {
        "judge:juror-a v1": (pytest.approx(4 / 6), pytest.approx(-1 / 6), 6),
        "judge:juror-b v1": (1.0, pytest.approx(0.0), 6),
        "judge:juror-c v1": (pytest.approx(5 / 6), pytest.approx(0.0), 6),
    }
    assert (
        main(["--db", demo, "alignment", PROJECT, "--field", "match", "--card", row["label"]]) == 0
    )
    card = capsys.readouterr().out
    assert "| member judge:juror-a v1 | 0.667; marginal gain -0.167 (n 6) | 6 |" in card
    assert "| jury (majority): agreement with the people's majority decision | 0.833 | 6 |" in card


def test_a_two_member_tie_goes_to_the_first_member_in_the_drawn_order(
    demo: str, fast_llm: ScriptedLLM, tmp_path: Path
) -> None:
    jury = _jury_module()
    fast_llm.handler = _handler
    _create_jurors(demo, tmp_path)
    settings = {"members": ["judge:juror-a", "judge:juror-b"], "seed": 7}
    declared = tmp_path / "jury.json"  # the jury declared in a file
    declared.write_text(json.dumps(settings), encoding="utf-8")
    args = ["--db", demo, "evaluate", PROJECT, "--evaluator", "jury"]
    assert main([*args, "--settings", f"@{declared}"]) == 0
    store = Store(demo)
    got = _jury_run(store, "majority")
    store.close()
    for item in ("alarm", "lights"):  # A says 1, B says 0
        first = jury.member_order(2, 7, item)[0]
        assert got[item].scores == {"match": 1.0 if first == 0 else 0.0}
        assert got[item].details["tie_broken_by_order"] == ["match"]
    assert "tie_broken_by_order" not in got["dinner"].details


def test_a_jury_refuses_bad_panels_in_one_line(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--db", demo, "evaluate", PROJECT, "--evaluator", "jury", "--settings"]
    assert main([*args, json.dumps({"members": ["judge:x"]})]) == 2
    assert "two or more members" in capsys.readouterr().err
    assert main([*args, json.dumps({"members": ["bleu", "jury"]})]) == 2
    assert "cannot sit on a jury" in capsys.readouterr().err
    assert main([*args, "@/no/such/jury.json"]) == 2
    err = capsys.readouterr().err
    assert "--settings @/no/such/jury.json: cannot read /no/such/jury.json" in err
    assert fast_llm.calls == 0
