"""Drift alarm (``alignment --check``): anchors chosen once, re-judged with the cache
bypassed, compared with the stored answers and with the people; kappa by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from alignment.drift import choose_anchors, cohen_kappa, compare, verdict
from alignment.drift_records import anchors, checks
from annotation_store import Store
from commands import main
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.test_llm_support import fast_llm_fixture

_fast_llm = fast_llm_fixture()
TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
PROJECT = "demo-intent-match"
ITEMS = ["alarm", "dinner", "late-message", "flights", "music", "lights"]
#: The people's majority on 'match' in the demo: alarm and lights 0, the rest 1.
PEOPLE = {"alarm": 0, "dinner": 1, "late-message": 1, "flights": 1, "music": 1, "lights": 0}


def _text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")


def _judge(no_words: tuple[str, ...]) -> Any:
    """Says 0 when the prompt has one of ``no_words``, else 1."""

    def handler(request: dict[str, Any]) -> Reply:
        answer = 0 if any(w in _text(request) for w in no_words) else 1
        return Reply(content=json.dumps({"explanation": "read both", "answer": answer}))

    return handler


def test_cohen_kappa_by_hand() -> None:
    # po 4/6; marginals (1/6, 5/6) and (3/6, 3/6): pe 1/2; kappa (2/3 - 1/2) / (1/2) = 1/3
    assert cohen_kappa([0, 1, 1, 1, 1, 1], [0, 1, 0, 1, 0, 1]) == pytest.approx(1 / 3)
    assert cohen_kappa([1, 1], [1, 1]) is None  # one category: pe = 1
    assert cohen_kappa([], []) is None


def test_anchors_are_stratified_by_the_peoples_majority_and_seeded() -> None:
    got = choose_anchors(ITEMS, PEOPLE, 4, seed=0)
    # quotas 4 * 2/6 = 1.33 and 4 * 4/6 = 2.67: floors 1 and 2, the larger remainder adds one
    assert sorted(got.values()) == ["0", "1", "1", "1"]
    assert list(got) == [i for i in ITEMS if i in got]  # in item order
    assert got == choose_anchors(ITEMS, PEOPLE, 4, seed=0)
    plain = choose_anchors(ITEMS, {}, 3, seed=1)  # no labels: a plain draw
    assert len(plain) == 3 and set(plain.values()) == {None}
    assert len(choose_anchors(ITEMS, PEOPLE, 50, seed=0)) == 6


def test_a_failed_reply_is_a_moved_answer_and_max_drop_judges_the_people() -> None:
    stored = dict.fromkeys(ITEMS, 1) | {"alarm": 0}
    now = {**stored, "late-message": 0, "music": 0, "lights": None}
    f = compare(ITEMS, stored, now, PEOPLE)
    assert f.moved == [("late-message", 1.0, 0.0), ("music", 1.0, 0.0), ("lights", 1.0, "failed")]
    assert f.failed == ["lights"] and f.agreement == pytest.approx(0.5)
    # people on the 5 anchors answered now: then [0,1,1,1,1] = people: kappa 1;
    # now [0,1,0,1,0] vs [0,1,1,1,1]: po 3/5, pe (3/5)(1/5) + (2/5)(4/5) = 11/25
    assert f.people_n == 5 and f.people_kappa_then == pytest.approx(1.0)
    assert f.people_kappa_now == pytest.approx((3 / 5 - 11 / 25) / (1 - 11 / 25))
    assert not verdict(f, None, 0.5).passed and verdict(f, None, 0.8).passed


def test_one_category_leaves_kappa_undefined_and_agreement_stands_in() -> None:
    from alignment.drift import majority

    same = dict.fromkeys(ITEMS, 1)
    f = compare(ITEMS, same, same, {})
    assert f.kappa is None and f.agreement == 1.0 and "undefined" in f.reasons["stability"]
    v = verdict(f, 0.9, None)
    assert v.passed and v.why == "agreement with the stored answers (kappa undefined) 1.000 >= 0.9"
    assert not verdict(f, None, 0.1).passed  # no people: max-drop has nothing to judge
    assert majority([1, 0, 1]) == 1.0 and majority([1, 0]) is None and majority([]) is None


def test_check_catches_a_judge_that_starts_answering_differently(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", demo]
    fast_llm.handler = _judge(("alarm",))
    assert main([*db, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    assert main([*db, "evaluate", PROJECT, "--evaluator", "judge:same-task"]) == 0
    assert fast_llm.calls == 6
    capsys.readouterr()

    check = [*db, "alignment", PROJECT, "--check"]
    assert main(check) == 0  # the same judge: passes
    out = capsys.readouterr().out
    assert fast_llm.calls == 12  # temperature 0, yet asked afresh: the cache was bypassed
    assert "judge:same-task v1 · model" in out and "6 anchors (stratified" in out
    assert "kappa with the stored answers 1.000 >= 0.8" in out and "PASS (min-kappa 0.8)" in out
    assert "moved" not in out

    # the endpoint changes without anyone editing the judge: two answers move
    fast_llm.handler = _judge(("alarm", "Anna", "Adele"))
    assert main(check) == 1
    out = capsys.readouterr().out
    assert "moved: 2 of 6 anchors: late-message 1 -> 0, music 1 -> 0" in out
    assert "agreement 0.667, kappa 0.333 (n 6 anchors)" in out
    # people: stored [0,1,1,1,1,1] vs [0,1,1,1,1,0]: po 5/6, pe 22/36, kappa 8/14;
    # now [0,1,0,1,0,1]: po 1/2, pe 1/2, kappa 0
    assert "kappa with their majority 0.571 before, 0.000 now (drop 0.571)" in out
    assert "FAIL (min-kappa 0.8): kappa with the stored answers 0.333 < 0.8" in out

    assert main([*check, "--max-drop", "0.6", "--anchors", "3"]) == 0
    out = capsys.readouterr().out
    assert "--anchors 3 ignored" in out and "PASS (max-drop 0.6)" in out
    assert main([*check, "--max-drop", "0.5", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["people"]["drop"] == pytest.approx(8 / 14) and doc["passed"] is False
    assert [m["item_id"] for m in doc["moved"]] == ["late-message", "music"]

    store = Store(demo)
    history = checks(store, PROJECT)
    assert [(c.version, c.passed, c.bar) for c in history] == [
        ("1", True, "min-kappa 0.8"),
        ("1", False, "min-kappa 0.8"),
        ("1", True, "max-drop 0.6"),
        ("1", False, "max-drop 0.5"),
    ]
    assert history[0].model == fast_llm.model
    assert list(anchors(store, PROJECT, "judge:same-task")) == ITEMS
    store.close()


def test_check_says_in_one_line_what_it_cannot_do(
    demo: str, fast_llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", demo]
    assert main([*db, "alignment", PROJECT, "--check"]) == 2
    assert "no judge has run on 'demo-intent-match'" in capsys.readouterr().err
    assert main([*db, "alignment", PROJECT, "--min-kappa", "0.5"]) == 2
    assert "go with --check" in capsys.readouterr().err
    fast_llm.handler = _judge(("alarm",))
    assert main([*db, "judge", "create", "same-task", "--from", str(TOML)]) == 0
    capsys.readouterr()
    args = [*db, "alignment", PROJECT, "--check", "--evaluator", "judge:same-task"]
    assert main(args) == 2
    assert "has no stored answers on 'demo-intent-match'" in capsys.readouterr().err
    assert main([*args, "--min-kappa", "0.5", "--max-drop", "0.1"]) == 2
    assert "give one bar" in capsys.readouterr().err
    assert fast_llm.calls == 0


def test_alignment_page_shows_the_check_history_per_version_and_model(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    from datetime import datetime

    from alignment.drift_records import CheckRecord, record_check
    from tests.alignment_fixtures import build_toy
    from tests.support.apptest import assert_ok, open_app

    build_toy(store, swap=False)
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/alignment.py", project="toy", timeout=180)
    assert any("No drift check yet" in str(c.value) for c in at.caption)

    def check(version: str, model: str, day: int, kappa: float, passed: bool) -> None:
        figures = {
            "agreement": kappa,
            "kappa": kappa,
            "moved": [{"item_id": "i03", "before": 1, "now": 0}] * (not passed),
            "people": {"kappa_then": 0.8, "kappa_now": 0.7},
        }
        when = datetime(2026, 11, day)
        record = CheckRecord("judge:toy", version, model, "sig", "label", 20, figures,
                             "min-kappa 0.8", passed, when)  # fmt: skip
        record_check(store, "toy", record)

    check("2", "m-a", 1, 1.0, True)
    check("1", "m-a", 2, 0.9, True)
    check("2", "m-a", 3, 0.5, False)
    check("2", "m-b", 4, 1.0, True)
    at.run()
    assert_ok(at)
    frame = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    got = frame[["version", "model", "kappa", "moved", "verdict"]].values.tolist()
    assert got == [
        ["1", "m-a", 0.9, 0, "pass"],
        ["2", "m-a", 0.5, 1, "FAIL"],  # newest first within version 2 on m-a
        ["2", "m-a", 1.0, 0, "pass"],
        ["2", "m-b", 1.0, 0, "pass"],
    ]


def test_anchors_are_stored_once_and_checks_kept_on_both_backends(any_store: Store) -> None:
    from alignment.drift_records import CheckRecord, record_check, save_anchors
    from annotation_store.store_projects import StoreError

    any_store.create_project("p", "binary")
    any_store.upsert_items("p", [{"item_id": i, "fields": {"text": i}} for i in ITEMS])
    save_anchors(any_store, "p", "judge:j", {"music": "1", "alarm": "0"}, seed=0)
    assert anchors(any_store, "p", "judge:j") == {"alarm": "0", "music": "1"}  # item order
    assert anchors(any_store, "p", "judge:other") == {}
    with pytest.raises(StoreError, match="already has drift anchors"):
        save_anchors(any_store, "p", "judge:j", {"dinner": None}, seed=0)
    with pytest.raises(StoreError, match="unknown items: nope"):
        save_anchors(any_store, "p", "judge:k", {"nope": None}, seed=0)
    assert anchors(any_store, "p", "judge:k") == {}  # nothing changed
    figures = {"kappa": 0.5, "moved": [{"item_id": "alarm", "before": 0, "now": 1}]}
    record_check(any_store, "p", CheckRecord("judge:j", "2", "m", "sig", "label", 2, figures,
                                             "min-kappa 0.8", False))  # fmt: skip
    [c] = checks(any_store, "p")
    assert (c.version, c.model, c.passed, c.figures) == ("2", "m", False, figures)
    assert c.created_at is not None


def test_the_judges_worked_examples_are_never_anchors(
    demo: str, fast_llm: ScriptedLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fast_llm.handler = _judge(("alarm",))
    toml = tmp_path / "fs.toml"
    few = f'\n[few_shot]\nproject = "{PROJECT}"\nitem_ids = ["dinner", "lights"]\n'
    toml.write_text(TOML.read_text() + few)
    db = ["--db", demo]
    assert main([*db, "judge", "create", "fs", "--from", str(toml)]) == 0
    assert main([*db, "evaluate", PROJECT, "--evaluator", "judge:fs"]) == 0
    assert main([*db, "alignment", PROJECT, "--check"]) == 0
    assert "4 anchors" in capsys.readouterr().out
    store = Store(demo)
    got = list(anchors(store, PROJECT, "judge:fs"))
    assert got == ["alarm", "late-message", "flights", "music"]  # dinner, lights were shown
    store.close()
